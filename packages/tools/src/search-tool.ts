/**
 * Retrieval for search-style agents (upstream `recipes/search_tool/tools.py`, over a local BM25 index instead of an
 * embedding store): load a JSONL document collection, index it, and expose `search(query, k)` as a typed tool whose
 * result is the numbered hits with their titles and text.
 */
import { readFileSync, statSync } from 'node:fs';
import { DataError } from '@cookbook/core';
import { z } from 'zod';
import { Bm25Index, type Bm25Options, type SearchDocument, type SearchHit } from './bm25.js';
import { defineTool, type Tool } from './define-tool.js';

/** Largest collection file {@link loadSearchCollection} reads. */
export const MAX_COLLECTION_BYTES = 256 * 1024 * 1024;

const DocumentRow = z.object({
  id: z.union([z.string().min(1), z.number().int()]).transform(String),
  title: z.string().optional(),
  text: z.string(),
});

/**
 * Parse a JSONL collection: one `{"id": …, "title"?: …, "text": …}` object per line (blank lines skipped). A bad line
 * throws a DataError naming `source` and the line.
 */
export function parseSearchCollection(jsonl: string, source = '<collection>'): SearchDocument[] {
  const docs: SearchDocument[] = [];
  const seen = new Map<string, number>();
  jsonl.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (e) {
      throw new DataError(`not JSON (${(e as Error).message})`, { file: source, line: i + 1 });
    }
    const row = DocumentRow.safeParse(raw);
    if (!row.success) {
      const issue = row.error.issues[0]!;
      const field = issue.path.map(String).join('.');
      throw new DataError(`${issue.message}; expected {"id", "title"?, "text"}`, {
        file: source,
        line: i + 1,
        ...(field === '' ? {} : { field }),
      });
    }
    const first = seen.get(row.data.id);
    if (first !== undefined) {
      throw new DataError(`duplicate id "${row.data.id}" (first on line ${first})`, {
        file: source,
        line: i + 1,
        field: 'id',
      });
    }
    seen.set(row.data.id, i + 1);
    const doc: SearchDocument = { id: row.data.id, text: row.data.text };
    if (row.data.title !== undefined) doc.title = row.data.title;
    docs.push(doc);
  });
  return docs;
}

/** Read a JSONL collection file (at most {@link MAX_COLLECTION_BYTES}). */
export function loadSearchCollection(path: string): SearchDocument[] {
  const size = statSync(path).size;
  if (size > MAX_COLLECTION_BYTES) {
    throw new DataError(`collection is ${size} bytes; the limit is ${MAX_COLLECTION_BYTES}`, { file: path });
  }
  return parseSearchCollection(readFileSync(path, 'utf8'), path);
}

/** Options of {@link searchTool}. */
export interface SearchToolOptions {
  /** The tool's name. Default `search`. */
  name?: string;
  /** Results when the call gives no `k`. Default 3. */
  defaultK?: number;
  /** Most results one call may ask for. Default 10. */
  maxK?: number;
  /** Characters of each document's text shown in a result. Default 500. */
  maxCharsPerDocument?: number;
  /** The tool's description (what the model reads). */
  description?: string;
}

/** The text a search tool returns for its hits. */
export function formatSearchHits(hits: readonly SearchHit[], maxCharsPerDocument = 500): string {
  if (hits.length === 0) return 'No documents matched the query.';
  return hits
    .map((h, i) => {
      const text =
        h.document.text.length > maxCharsPerDocument
          ? `${h.document.text.slice(0, maxCharsPerDocument)}…`
          : h.document.text;
      return `[${i + 1}] ${h.document.title ?? h.document.id}\n${text}`;
    })
    .join('\n\n');
}

/** The arguments of the search tool. */
export type SearchToolParameters = z.ZodObject<{ query: z.ZodString; k: z.ZodDefault<z.ZodNumber> }>;

/**
 * A `search(query, k)` tool over a BM25 index (or a document list, indexed here). Its result lists the hits, best
 * first; metric `search_hits` counts them.
 */
export function searchTool(
  source: Bm25Index | readonly SearchDocument[],
  options: SearchToolOptions & Bm25Options = {},
): Tool<SearchToolParameters> {
  const index = source instanceof Bm25Index ? source : new Bm25Index(source, options);
  const defaultK = options.defaultK ?? 3;
  const maxK = options.maxK ?? 10;
  const parameters = z.object({
    query: z.string().min(1).describe('What to search for (keywords work best)'),
    k: z.number().int().min(1).max(maxK).default(defaultK).describe(`How many documents to return (1-${maxK})`),
  });
  return defineTool({
    name: options.name ?? 'search',
    description:
      options.description ??
      `Search a collection of ${index.size} documents by keywords; returns the best matches with their text`,
    parameters,
    run: ({ query, k }) => {
      const hits = index.search(query, k);
      return { content: formatSearchHits(hits, options.maxCharsPerDocument), metrics: { search_hits: hits.length } };
    },
  });
}
