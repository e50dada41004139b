/**
 * Datasets from a JSONL conversation file, one `{"messages": [...]}` per line (upstream
 * `FromConversationFileBuilder`). Every line is validated when the datasets are built, so a malformed file fails
 * with its file and line before a run writes anything. The streaming variant holds only one shuffle buffer in
 * memory: a first pass validates and counts the lines (skip it by giving `numRows`).
 */
import { CookbookError, DataError, type Datum, type Message, readLinesSync, seededPermutation } from '@cookbook/core';
import { type ChatDatasetCommonConfig, conversationDatumFn } from './chat-dataset.js';
import { parseConversationLine } from './conversation.js';
import {
  StreamingSupervisedDataset,
  type SupervisedDatasetBuilder,
  SupervisedDatasetFromRows,
  type SupervisedDatasets,
} from './dataset.js';

/** A conversation and where it came from. */
export interface ConversationRow {
  messages: Message[];
  /** Source file, if any. */
  file?: string;
  /** 1-based line (or row) number in the source. */
  line: number;
}

/** Options of {@link fromConversationFile}. */
export interface ConversationFileOptions {
  /** Path of the JSONL file. */
  filePath: string;
  common: ChatDatasetCommonConfig;
  /** Conversations held out as the test set (one batch). Default 0. */
  testSize?: number;
  /** Seed of the shuffle that picks the test set. Default 0. */
  shuffleSeed?: number;
  /** Key of the message list in each line. Default `messages`. */
  messageField?: string;
}

/** Options of {@link streamConversationFile}. */
export interface StreamingConversationFileOptions extends ConversationFileOptions {
  /** Number of conversations in the file, if known; skips the validating first pass. */
  numRows?: number;
  /** Shuffle buffer size in conversations. Default 10 000. */
  bufferSize?: number;
}

/** Every conversation of a JSONL file, validated. Blank lines are skipped. */
export function readConversationFile(filePath: string, messageField = 'messages'): ConversationRow[] {
  const rows: ConversationRow[] = [];
  for (const row of iterateConversationFile(filePath, messageField)) rows.push(row);
  if (rows.length === 0) throw new DataError('the file holds no conversations', { file: filePath });
  return rows;
}

/** Conversations of a JSONL file, parsed and validated one line at a time. */
export function* iterateConversationFile(filePath: string, messageField = 'messages'): Generator<ConversationRow> {
  let lines: Generator<{ text: string; line: number }>;
  try {
    lines = readLinesSync(filePath);
  } catch (error) {
    throw new DataError(
      `cannot read the conversation file (${error instanceof Error ? error.message : String(error)})`,
      {
        file: filePath,
        cause: error,
      },
    );
  }
  for (const { text, line } of lines) {
    if (text.trim() === '') continue;
    yield { messages: parseConversationLine(text, { file: filePath, line }, messageField), file: filePath, line };
  }
}

/** Wraps a conversion so its errors name the row's file and line. */
export function rowToDatum(convert: (messages: readonly Message[]) => Datum): (row: ConversationRow) => Datum {
  return (row) => {
    try {
      return convert(row.messages);
    } catch (error) {
      if (error instanceof DataError && error.line !== undefined) throw error;
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof CookbookError || error instanceof Error) {
        throw new DataError(`cannot build a training example: ${message}`, {
          ...(row.file === undefined ? {} : { file: row.file }),
          line: row.line,
          cause: error,
        });
      }
      throw error;
    }
  };
}

function checkTestSize(testSize: number, n: number, file: string): void {
  if (!Number.isInteger(testSize) || testSize < 0) {
    throw new DataError(`test_size must be a non-negative integer, got ${testSize}`, { field: 'test_size' });
  }
  if (testSize >= n) {
    throw new DataError(`test_size=${testSize} leaves no training conversations (the file has ${n})`, {
      file,
      field: 'test_size',
    });
  }
}

/**
 * Split rows into datasets: shuffle with `shuffleSeed`, the first `testSize` rows are the test set (one batch), the
 * rest the training set.
 */
export function datasetsFromConversationRows(
  rows: readonly ConversationRow[],
  options: Omit<ConversationFileOptions, 'filePath'> & { source?: string },
): SupervisedDatasets {
  const testSize = options.testSize ?? 0;
  checkTestSize(testSize, rows.length, options.source ?? '<rows>');
  const toDatum = rowToDatum(conversationDatumFn(options.common));
  const order = seededPermutation(rows.length, options.shuffleSeed ?? 0);
  const shuffled = order.map((i) => rows[i]!);
  const train = new SupervisedDatasetFromRows(shuffled.slice(testSize), options.common.batchSize, toDatum);
  const test = testSize > 0 ? new SupervisedDatasetFromRows(shuffled.slice(0, testSize), testSize, toDatum) : undefined;
  return { train, test };
}

/** A builder reading the whole file into memory (conversations stay as messages; tokens are made per batch). */
export function fromConversationFile(options: ConversationFileOptions): SupervisedDatasetBuilder {
  return () =>
    datasetsFromConversationRows(readConversationFile(options.filePath, options.messageField), {
      ...options,
      source: options.filePath,
    });
}

/**
 * A builder streaming the file: the first `testSize` conversations (file order) are the test set, the rest are read
 * forward through a seeded shuffle buffer each epoch.
 */
export function streamConversationFile(options: StreamingConversationFileOptions): SupervisedDatasetBuilder {
  return () => {
    const { filePath, messageField } = options;
    const testSize = options.testSize ?? 0;
    let numRows = options.numRows;
    if (numRows === undefined) {
      numRows = 0;
      for (const _ of iterateConversationFile(filePath, messageField)) numRows++;
    }
    checkTestSize(testSize, numRows, filePath);
    const toDatum = rowToDatum(conversationDatumFn(options.common));
    const testRows: ConversationRow[] = [];
    if (testSize > 0) {
      for (const row of iterateConversationFile(filePath, messageField)) {
        testRows.push(row);
        if (testRows.length === testSize) break;
      }
    }
    const train = new StreamingSupervisedDataset<ConversationRow>({
      open: function* () {
        let seen = 0;
        for (const row of iterateConversationFile(filePath, messageField)) {
          if (seen++ < testSize) continue;
          yield row;
        }
      },
      numRows: numRows - testSize,
      batchSize: options.common.batchSize,
      toDatums: toDatum,
      ...(options.bufferSize === undefined ? {} : { bufferSize: options.bufferSize }),
    });
    const test = testSize > 0 ? new SupervisedDatasetFromRows(testRows, testSize, toDatum) : undefined;
    return { train, test };
  };
}
