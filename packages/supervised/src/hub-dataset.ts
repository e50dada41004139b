/**
 * Conversation datasets from Parquet / JSONL files and from the Hugging Face Hub (upstream loads
 * `datasets.load_dataset(name)`; here the Hub's data files are downloaded with `@huggingface/hub` into its cache and
 * read with `hyparquet`). The Hub path needs the network; everything after the download is the local-file path.
 */
import { DataError, loadOptionalPeer, parseJsonLine, readLinesSync } from '@cookbook/core';
import type { ChatDatasetCommonConfig } from './chat-dataset.js';
import { conversationFromRecord } from './conversation.js';
import { type ConversationRow, datasetsFromConversationRows } from './conversation-file.js';
import type { SupervisedDatasetBuilder } from './dataset.js';

/** Every row of a Parquet file as a plain object (nested lists and structs included). */
export async function readParquetRecords(path: string): Promise<Record<string, unknown>[]> {
  const { asyncBufferFromFile, parquetReadObjects } = await import('hyparquet');
  let file: Awaited<ReturnType<typeof asyncBufferFromFile>>;
  try {
    file = await asyncBufferFromFile(path);
  } catch (error) {
    throw new DataError(`cannot read the Parquet file (${error instanceof Error ? error.message : String(error)})`, {
      file: path,
      cause: error,
    });
  }
  try {
    return (await parquetReadObjects({ file })) as Record<string, unknown>[];
  } catch (error) {
    throw new DataError(`not a readable Parquet file (${error instanceof Error ? error.message : String(error)})`, {
      file: path,
      cause: error,
    });
  }
}

/** Conversations of a `.parquet`, `.jsonl` or `.json` (JSON lines) file, validated; rows are numbered from 1. */
export async function readConversationRecords(path: string, messageField = 'messages'): Promise<ConversationRow[]> {
  if (path.endsWith('.parquet')) {
    const records = await readParquetRecords(path);
    return records.map((record, i) => ({
      messages: conversationFromRecord(record, { file: path, line: i + 1 }, messageField),
      file: path,
      line: i + 1,
    }));
  }
  const rows: ConversationRow[] = [];
  for (const { text, line } of readLinesSync(path)) {
    if (text.trim() === '') continue;
    const record = parseJsonLine(text, { file: path, line });
    rows.push({ messages: conversationFromRecord(record, { file: path, line }, messageField), file: path, line });
  }
  return rows;
}

/** Options of {@link fromParquetFile}. */
export interface ParquetFileOptions {
  /** Path of a local `.parquet` file with a column of messages. */
  filePath: string;
  common: ChatDatasetCommonConfig;
  /** Column holding the message list (a list of {role, content} structs or a JSON string). Default `messages`. */
  messageField?: string;
  testSize?: number;
  shuffleSeed?: number;
}

/** A builder reading conversations from a local Parquet file. */
export function fromParquetFile(options: ParquetFileOptions): SupervisedDatasetBuilder {
  return async () =>
    datasetsFromConversationRows(await readConversationRecords(options.filePath, options.messageField), {
      ...options,
      source: options.filePath,
    });
}

/** Options of {@link fromHubDataset}. */
export interface HubDatasetOptions {
  /** Dataset repository, e.g. `HuggingFaceH4/no_robots`. */
  repo: string;
  /** Split whose files are read. Default `train`. */
  split?: string;
  /** Subset (config) folder, for repositories that have several. */
  subset?: string;
  common: ChatDatasetCommonConfig;
  messageField?: string;
  testSize?: number;
  shuffleSeed?: number;
  /** Git revision. Default `main`. */
  revision?: string;
  /** Hub cache folder. Default: `@huggingface/hub`'s. */
  cacheDir?: string;
  /** Token for gated datasets. Default `HF_TOKEN`. */
  accessToken?: string;
}

/** Whether a data file path belongs to `split` (and `subset`), following the Hub's file naming conventions. */
export function hubFileMatches(path: string, split: string, subset?: string): boolean {
  if (!/\.(parquet|jsonl|json)$/.test(path)) return false;
  const parts = path.split('/');
  if (subset !== undefined && !parts.slice(0, -1).includes(subset)) return false;
  const name = parts.at(-1)!;
  const escaped = split.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return parts.slice(0, -1).includes(split) || new RegExp(`(^|[-_.])${escaped}([-_.]|$)`).test(name);
}

/** A failed Hub request as a DataError that says why (no network, unknown repo) and what to do instead. */
function hubUnreachable(repo: string, err: unknown): DataError {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const offline = code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ECONNREFUSED' || code === 'ETIMEDOUT';
  const why = offline
    ? 'the Hugging Face Hub is not reachable (no network?)'
    : `the Hugging Face Hub answered: ${err instanceof Error ? err.message : String(err)}`;
  return new DataError(
    `cannot download dataset ${repo}: ${why}; download its files and pass dataset=path/to/file.jsonl (or .parquet)`,
    { cause: err },
  );
}

/**
 * A builder downloading a dataset's `split` from the Hugging Face Hub (Parquet or JSONL data files) into the local
 * Hub cache, then reading it like a local file. Needs the network unless the files are cached; honours
 * `HF_HUB_OFFLINE=1` by refusing to download.
 */
export function fromHubDataset(options: HubDatasetOptions): SupervisedDatasetBuilder {
  return async () => {
    const split = options.split ?? 'train';
    if (process.env.HF_HUB_OFFLINE === '1') {
      throw new DataError(
        `HF_HUB_OFFLINE=1: cannot download ${options.repo}; use a local conversation file (dataset=path/to/file.jsonl)`,
      );
    }
    const { downloadFileToCacheDir, listFiles } = await loadOptionalPeer(
      () => import('@huggingface/hub'),
      '@huggingface/hub',
      `to download the Hub dataset ${options.repo}`,
      'use a local conversation file (dataset=path/to/file.jsonl)',
    );
    const repo = { type: 'dataset' as const, name: options.repo };
    const accessToken = options.accessToken ?? process.env.HF_TOKEN;
    const common = {
      repo,
      ...(options.revision === undefined ? {} : { revision: options.revision }),
      ...(accessToken === undefined ? {} : { accessToken }),
    };
    const paths: string[] = [];
    try {
      for await (const entry of listFiles({ ...common, recursive: true })) {
        if (entry.type === 'file' && hubFileMatches(entry.path, split, options.subset)) paths.push(entry.path);
      }
    } catch (err) {
      throw hubUnreachable(options.repo, err);
    }
    paths.sort();
    if (paths.length === 0) {
      throw new DataError(
        `no Parquet or JSONL files for split "${split}"${options.subset ? ` of subset "${options.subset}"` : ''} in dataset ${options.repo}`,
      );
    }
    const rows: ConversationRow[] = [];
    for (const path of paths) {
      const local = await downloadFileToCacheDir({
        ...common,
        path,
        ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
      }).catch((err: unknown) => {
        throw hubUnreachable(options.repo, err);
      });
      rows.push(...(await readConversationRecords(local, options.messageField)));
    }
    return datasetsFromConversationRows(rows, { ...options, source: options.repo });
  };
}
