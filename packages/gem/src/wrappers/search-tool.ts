/**
 * The search tool of the `search_tool` / `search_tool_no_int_reward` wrappers (GEM `SearchTool`), over
 * `@cookbook/tools`' BM25 index of a local document collection.
 *
 * As in GEM: the first `<search>…</search>` of a response (across lines) is the call; its text with surrounding
 * whitespace removed is the query; the action recorded for the observation wrappers is the response up to the end of
 * that tag; the policy sees the top `topk` (3) documents as lines `Doc <i>(Title: <title>) <text>` each ending in a
 * newline, without any other framing (no `<information>` tags); no match gives an empty observation. A document's
 * title is its `title`, else the first line of its text (GEM's retrieval server returns `contents`, whose first line
 * is the title).
 *
 * Deliberate difference: GEM posts the query (msgpack) to a Search-R1 retrieval server at `search_url` /
 * `$SEARCH_URL`; here the documents are a JSONL collection (`{"id", "title"?, "text"}` per line) searched in process
 * with BM25, so the wrappers work offline. A search here cannot fail, so no call counts as an execution error (GEM's
 * `[SearchTool Error: …]` comes from the HTTP request). The instruction text is this project's own wording.
 */
import { existsSync } from 'node:fs';
import { ConfigError } from '@cookbook/core';
import { Bm25Index, loadSearchCollection, type SearchDocument } from '@cookbook/tools';
import { PY_SPACE_CLASS } from '../core/python-text.js';
import type { Tool, ToolResult } from './python-tool.js';

/** Options of {@link GemSearchTool}. */
export interface GemSearchToolOptions {
  /** Documents returned per query. Default 3 (GEM's wrappers). */
  topk?: number;
}

/** The first search call of a response: `<search>` … `</search>`, any characters in between (GEM: `re.DOTALL`). */
const SEARCH_TAG = /<search>([\s\S]*?)<\/search>/;

/** Python's `str.strip()` with no argument: whitespace as `str.isspace()` reads it (not U+FEFF, unlike JS `\s`). */
const PY_STRIP = new RegExp(`^[${PY_SPACE_CLASS}]+|[${PY_SPACE_CLASS}]+$`, 'gu');

/** Formats search hits as GEM's `_passages2string` does. */
export function formatGemSearchResult(documents: readonly SearchDocument[]): string {
  return documents
    .map((d, i) => {
      const contents = d.title === undefined ? d.text : `${d.title}\n${d.text}`;
      const lines = contents.split('\n');
      return `Doc ${i + 1}(Title: ${lines[0]}) ${lines.slice(1).join('\n')}\n`;
    })
    .join('');
}

/** Searches a document collection for `<search>…</search>` calls (GEM `SearchTool`). */
export class GemSearchTool implements Tool {
  readonly name = 'search';
  readonly topk: number;

  constructor(
    readonly index: Bm25Index,
    options: GemSearchToolOptions = {},
  ) {
    this.topk = options.topk ?? 3;
    if (!Number.isInteger(this.topk) || this.topk < 1) {
      throw new ConfigError(`search tool topk must be a positive integer, got ${this.topk}`, { key: 'topk' });
    }
  }

  instructionString(): string {
    return (
      'You can search a collection of documents.\n' +
      '- When you need a fact you do not know, write a search query inside <search> and </search>, for example:\n' +
      '  <search> your query here </search>\n' +
      '- The best matching documents will then be shown to you, one per line as "Doc 1(Title: …) …".\n' +
      '- Search as many times as you need (each search is one turn).\n' +
      '- When you are ready, give your final answer inside <answer> and </answer>.'
    );
  }

  parse(action: string): { code: string; parsedAction: string } | undefined {
    const m = SEARCH_TAG.exec(action);
    if (m === null) return undefined;
    return { code: (m[1] ?? '').replace(PY_STRIP, ''), parsedAction: action.slice(0, m.index + m[0].length) };
  }

  async execute(call: { code: string; parsedAction: string }): Promise<ToolResult> {
    const hits = this.index.search(call.code, this.topk);
    return {
      observation: formatGemSearchResult(hits.map((h) => h.document)),
      parsedAction: call.parsedAction,
      error: false,
    };
  }
}

/** The index of a collection file (`{"id", "title"?, "text"}` per line), cached per path for the process. */
const indexes = new Map<string, Bm25Index>();

/**
 * The BM25 index of the JSONL collection at `path` (read and indexed once per path).
 * @throws ConfigError when there is no such file; DataError naming the file and line of a bad row.
 */
export function searchCollectionIndex(path: string): Bm25Index {
  let index = indexes.get(path);
  if (index === undefined) {
    if (!existsSync(path)) {
      throw new ConfigError(
        `search_collection: no file at ${path} (a JSONL file, one {"id", "title"?, "text"} per line)`,
        {
          key: 'search_collection',
        },
      );
    }
    index = new Bm25Index(loadSearchCollection(path));
    indexes.set(path, index);
  }
  return index;
}
