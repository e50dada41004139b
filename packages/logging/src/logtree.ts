/**
 * HTML transcripts (upstream `utils/logtree.py`, a context-var based builder). Two ways to use it:
 * - explicit: `const t = new Transcript('title'); t.section('Group 0').text('…'); await t.write(path)`;
 * - ambient, like upstream: `await initTrace('title', path, async () => { await scopeHeader('Group 0', …); logText('…') })`.
 *   The ambient functions use AsyncLocalStorage, so code deep inside an environment can log without being handed the
 *   transcript, and they do nothing when no trace is active.
 * All text is HTML-escaped; only `html()`/`logHtml()` insert raw markup. Files are written atomically.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { writeFileAtomic } from './atomic-write.js';
import { escapeHtml } from './internal/html.js';

/** Something that renders itself to HTML and needs some CSS, included once per document (keyed by `cssKey`). */
export interface HtmlFormatter {
  /** Identifies the CSS so it is emitted once however many times the formatter is used. */
  readonly cssKey: string;
  /** CSS rules for the markup of `toHtml()`. */
  readonly css: string;
  /** The HTML fragment. */
  toHtml(): string;
}

/** A table: rows of records (columns = union of keys) or one record (shown as key/value rows). */
export type TableData = ReadonlyArray<Readonly<Record<string, unknown>>> | Readonly<Record<string, unknown>>;

const BASE_CSS = `
body { font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; color: #1f2328; line-height: 1.45; }
h1 { margin-bottom: 0.1em; }
.lt-generated { color: #6e7781; font-size: 0.85em; margin-bottom: 1.5em; }
section.lt-section { border-left: 3px solid #d0d7de; padding-left: 0.9em; margin: 0.8em 0; }
.lt-text { white-space: pre-wrap; word-wrap: break-word; margin: 0.3em 0; }
table.lt-table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
table.lt-table th, table.lt-table td { border: 1px solid #d0d7de; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
table.lt-table th { background: #f6f8fa; }
table.lt-table caption { text-align: left; font-weight: 600; padding: 0.2em 0; }
details.lt-details { margin: 0.4em 0; }
details.lt-details > summary { cursor: pointer; color: #0969da; }
details.lt-details pre { white-space: pre-wrap; background: #f6f8fa; padding: 0.6em; border-radius: 4px; }
`;

/** @internal A node of the transcript tree. */
export type TranscriptNode =
  | { kind: 'html'; html: string }
  | { kind: 'section'; title: string; children: TranscriptNode[] };

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Renders a table as HTML (all cells escaped). */
export function tableHtml(data: TableData, caption?: string): string {
  const cap = caption === undefined ? '' : `<caption>${escapeHtml(caption)}</caption>`;
  if (!Array.isArray(data)) {
    const rows = Object.entries(data as Record<string, unknown>)
      .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(cellText(v))}</td></tr>`)
      .join('');
    return `<table class="lt-table">${cap}<tbody>${rows}</tbody></table>`;
  }
  const records = data as ReadonlyArray<Readonly<Record<string, unknown>>>;
  const columns = [...new Set(records.flatMap((r) => Object.keys(r)))];
  const head = `<tr>${columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr>`;
  const body = records
    .map((r) => `<tr>${columns.map((c) => `<td>${escapeHtml(cellText(r[c]))}</td>`).join('')}</tr>`)
    .join('');
  return `<table class="lt-table">${cap}<thead>${head}</thead><tbody>${body}</tbody></table>`;
}

/** A part of a transcript that content is added to: the whole document or one (nested) section. */
export class TranscriptSection {
  readonly #nodes: TranscriptNode[];
  readonly #css: Map<string, string>;

  /** @internal Use {@link Transcript} or {@link TranscriptSection.section}. */
  protected constructor(nodes: TranscriptNode[], css: Map<string, string>) {
    this.#nodes = nodes;
    this.#css = css;
  }

  /** Adds escaped text (whitespace and newlines kept). */
  text(text: string): void {
    this.#nodes.push({ kind: 'html', html: `<div class="lt-text">${escapeHtml(text)}</div>` });
  }

  /** Adds raw HTML (not escaped: the caller is responsible for it). */
  html(html: string): void {
    this.#nodes.push({ kind: 'html', html });
  }

  /** Adds a table; see {@link TableData}. */
  table(data: TableData, options: { caption?: string } = {}): void {
    this.html(tableHtml(data, options.caption));
  }

  /** Adds a collapsed `<details>` block with `summary` and `content` (escaped text in a `<pre>`). */
  details(summary: string, content: string): void {
    this.html(
      `<details class="lt-details"><summary>${escapeHtml(summary)}</summary><pre>${escapeHtml(content)}</pre></details>`,
    );
  }

  /** Adds a formatter's HTML, and its CSS once per document. */
  add(formatter: HtmlFormatter): void {
    if (!this.#css.has(formatter.cssKey)) this.#css.set(formatter.cssKey, formatter.css);
    this.html(formatter.toHtml());
  }

  /** Appends a sub-section titled `title` and returns it. Headings are levelled by nesting (h2 … h6). */
  section(title: string): TranscriptSection {
    const children: TranscriptNode[] = [];
    this.#nodes.push({ kind: 'section', title, children });
    return new TranscriptSection(children, this.#css);
  }

  /** Runs `fn` with a new sub-section titled `title`; returns what `fn` returns. */
  scope<T>(title: string, fn: (section: TranscriptSection) => T): T {
    return fn(this.section(title));
  }
}

/** An HTML transcript under construction: nested sections of text, HTML, tables and collapsible details. */
export class Transcript extends TranscriptSection {
  /** Document title (the `<title>` and the `<h1>`). */
  readonly title: string;
  readonly #root: TranscriptNode[];
  readonly #cssRules: Map<string, string>;

  constructor(title: string) {
    const root: TranscriptNode[] = [];
    const css = new Map<string, string>();
    super(root, css);
    this.title = title;
    this.#root = root;
    this.#cssRules = css;
  }

  /** The complete HTML document. `generatedAt` defaults to now. */
  toHtml(generatedAt: Date = new Date()): string {
    const render = (nodes: TranscriptNode[], depth: number): string =>
      nodes
        .map((node) => {
          if (node.kind === 'html') return node.html;
          const level = Math.min(6, depth + 2);
          return `<section class="lt-section"><h${level}>${escapeHtml(node.title)}</h${level}>\n${render(node.children, depth + 1)}</section>`;
        })
        .join('\n');
    const css = [BASE_CSS, ...this.#cssRules.values()].join('\n');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(this.title)}</title>
<style>${css}</style>
</head>
<body>
<h1>${escapeHtml(this.title)}</h1>
<div class="lt-generated">Generated ${escapeHtml(generatedAt.toISOString())}</div>
${render(this.#root, 0)}
</body>
</html>
`;
  }

  /** Writes the document to `path` atomically (parent folders created). */
  async write(path: string): Promise<void> {
    await writeFileAtomic(path, this.toHtml());
  }
}

// The ambient section: each async task sees its own, so concurrent scopes (one per rollout group) never interleave.
const storage = new AsyncLocalStorage<TranscriptSection>();

/** The section the ambient functions currently add to (inside {@link initTrace}), if any. */
export function currentTrace(): TranscriptSection | undefined {
  return storage.getStore();
}

/**
 * Runs `fn` with a new transcript as the ambient trace, then writes it to `path` — also when `fn` throws (a partial
 * transcript helps debugging), after which the error is rethrown. Returns what `fn` returns.
 */
export async function initTrace<T>(title: string, path: string, fn: () => T | Promise<T>): Promise<T> {
  const transcript = new Transcript(title);
  try {
    return await storage.run(transcript, fn);
  } finally {
    await transcript.write(path);
  }
}

/** Runs `fn` inside a section of the ambient trace (or just runs it when there is none). */
export function scopeHeader<T>(title: string, fn: () => T): T {
  const current = storage.getStore();
  return current ? storage.run(current.section(title), fn) : fn();
}

/** Adds escaped text to the ambient trace; no-op without one. */
export function logText(text: string): void {
  storage.getStore()?.text(text);
}

/** Adds raw HTML to the ambient trace; no-op without one. */
export function logHtml(html: string): void {
  storage.getStore()?.html(html);
}

/** Adds a table to the ambient trace; no-op without one. */
export function logTable(data: TableData, options: { caption?: string } = {}): void {
  storage.getStore()?.table(data, options);
}

/** Adds a collapsed details block to the ambient trace; no-op without one. */
export function logDetails(summary: string, content: string): void {
  storage.getStore()?.details(summary, content);
}

/** Adds a formatter (e.g. {@link ConversationFormatter}) to the ambient trace; no-op without one. */
export function logFormatter(formatter: HtmlFormatter): void {
  storage.getStore()?.add(formatter);
}
