/**
 * Rows of a Hugging Face Hub dataset through the datasets-server rows API, page by page: the benchmarks here, the
 * math RL recipes of `@cookbook/rl`, the comparison data sets of `@cookbook/preference` and distillation's data read
 * through it. (`@cookbook/supervised` reads whole Hub data files instead: it downloads Parquet / JSONL files with
 * `@huggingface/hub`; model weights and tokenizers come from the Hub through their own packages.)
 * Failures are {@link HubRowsError}s whose `reason` says what went wrong in a phrase, so a caller can name its own
 * data set and its offline alternative around it.
 */
import { DataError } from '@cookbook/core';

/** A Hub read that failed: offline, unreachable, an HTTP error or truncated cells. */
export class HubRowsError extends DataError {
  override name = 'HubRowsError';
  /** What went wrong, as a phrase (`the Hub is not reachable (no network?)`, `HF_HUB_OFFLINE=1 is set`, …). */
  readonly reason: string;

  constructor(dataset: string, split: string, reason: string, cause?: unknown) {
    super(`could not read ${dataset} (${split}) from the Hugging Face Hub: ${reason}`, { cause });
    this.reason = reason;
  }
}

/** Options of {@link fetchHubRows}. */
export interface FetchHubRowsOptions {
  dataset: string;
  /** Dataset config. Default `default`. */
  config?: string;
  split: string;
  /** Most rows to read. Default 1000. */
  limit?: number;
  fetch?: typeof globalThis.fetch;
  /** Called once with the split's `features` (column types: a ClassLabel column lists its class names). */
  onFeatures?: (features: unknown[]) => void;
}

const PAGE = 100;
const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ETIMEDOUT']);

/**
 * Up to `limit` rows of a Hub dataset split, read 100 at a time (network). Refused before any request when
 * `HF_HUB_OFFLINE=1`; a row with truncated cells fails rather than passing on cut text.
 */
export async function fetchHubRows(options: FetchHubRowsOptions): Promise<Record<string, unknown>[]> {
  const { dataset, split } = options;
  if (process.env.HF_HUB_OFFLINE === '1') throw new HubRowsError(dataset, split, 'HF_HUB_OFFLINE=1 is set');
  const doFetch = options.fetch ?? globalThis.fetch;
  const limit = options.limit ?? 1000;
  const rows: Record<string, unknown>[] = [];
  for (let offset = 0; offset < limit; offset += PAGE) {
    const length = Math.min(PAGE, limit - offset);
    const url = new URL('https://datasets-server.huggingface.co/rows');
    url.searchParams.set('dataset', dataset);
    url.searchParams.set('config', options.config ?? 'default');
    url.searchParams.set('split', split);
    url.searchParams.set('offset', String(offset));
    url.searchParams.set('length', String(length));
    let res: Response;
    try {
      res = await doFetch(url);
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      const code = (cause as NodeJS.ErrnoException | undefined)?.code;
      const reason =
        code === undefined || UNREACHABLE.has(code)
          ? 'the Hub is not reachable (no network?)'
          : `the request failed (${code})`;
      throw new HubRowsError(dataset, split, reason, error);
    }
    if (!res.ok) throw new HubRowsError(dataset, split, `the Hub answered HTTP ${res.status}`);
    const body = (await res.json()) as {
      rows?: { row: Record<string, unknown>; truncated_cells?: string[] }[];
      features?: unknown[];
    };
    if (offset === 0) options.onFeatures?.(body.features ?? []);
    const page = body.rows ?? [];
    for (const r of page) {
      if (r.truncated_cells !== undefined && r.truncated_cells.length > 0) {
        const reason = `the Hub truncated fields ${r.truncated_cells.join(', ')} of row ${rows.length}`;
        throw new HubRowsError(dataset, split, reason);
      }
      rows.push(r.row);
    }
    if (page.length < length) break;
  }
  return rows;
}
