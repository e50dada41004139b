/**
 * Supervised datasets (upstream `supervised/types.py` and `supervised/data.py`): a dataset hands out batches of
 * datums by index, knows how many batches it has, and reshuffles per epoch. Batch i holds rows [i·bs, (i+1)·bs) of
 * the epoch's order; the last partial batch is dropped. Shuffles use a seeded PRNG, so an epoch's order depends on
 * the seed alone (what exact resume needs). The streaming variant reads forward only.
 */
import { DataError, type Datum, seededPermutation, seededRandom } from '@cookbook/core';

/** Batches of datums for supervised learning. */
export interface SupervisedDataset {
  /** Batch `index` (0 ≤ index < length). */
  getBatch(index: number): Datum[];
  /** Number of batches per epoch. */
  readonly length: number;
  /** Reorder the rows for a new epoch; the order is a function of `seed` only. */
  setEpoch(seed: number): void;
}

/** A training set and an optional held-out set. */
export interface SupervisedDatasets {
  train: SupervisedDataset;
  test?: SupervisedDataset | undefined;
}

/** Builds the datasets of a run (upstream `SupervisedDatasetBuilder.__call__`). May read files or download. */
export type SupervisedDatasetBuilder = () => SupervisedDatasets | Promise<SupervisedDatasets>;

/** Turns one row into one datum, or several (upstream `map_fn` / `flatmap_fn`). `index` is the row's original index. */
export type RowToDatums<R> = (row: R, index: number) => Datum | Datum[];

function pushDatums(out: Datum[], produced: Datum | Datum[]): void {
  if (Array.isArray(produced)) out.push(...produced);
  else out.push(produced);
}

function checkBatchSize(batchSize: number): void {
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new DataError(`batch_size must be a positive integer, got ${batchSize}`, { field: 'batch_size' });
  }
}

/**
 * An in-memory dataset of rows converted lazily, batch by batch (upstream `SupervisedDatasetFromHFDataset`).
 * Before the first `setEpoch` the rows are in their given order; `setEpoch(seed)` shuffles the original rows with
 * `seed`.
 */
export class SupervisedDatasetFromRows<R> implements SupervisedDataset {
  readonly rows: readonly R[];
  readonly batchSize: number;
  private readonly toDatums: RowToDatums<R>;
  private order: number[];

  constructor(rows: readonly R[], batchSize: number, toDatums: RowToDatums<R>) {
    checkBatchSize(batchSize);
    this.rows = rows;
    this.batchSize = batchSize;
    this.toDatums = toDatums;
    this.order = rows.map((_, i) => i);
  }

  get length(): number {
    return Math.floor(this.rows.length / this.batchSize);
  }

  setEpoch(seed: number): void {
    this.order = seededPermutation(this.rows.length, seed);
  }

  getBatch(index: number): Datum[] {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) {
      throw new DataError(`batch index ${index} is out of range [0, ${this.length})`);
    }
    const out: Datum[] = [];
    for (let k = index * this.batchSize; k < (index + 1) * this.batchSize; k++) {
      const i = this.order[k]!;
      pushDatums(out, this.toDatums(this.rows[i]!, i));
    }
    return out;
  }
}

/** Options of {@link StreamingSupervisedDataset}. */
export interface StreamingSupervisedDatasetOptions<R> {
  /** Opens a fresh pass over the rows (called once per epoch and on a backward seek). */
  open: () => Iterable<R>;
  /** Number of rows one pass yields (from a first counting pass, or known in advance). */
  numRows: number;
  batchSize: number;
  toDatums: RowToDatums<R>;
  /** Rows held for the shuffle buffer; 0 or 1 keeps file order. Default 10 000. */
  bufferSize?: number;
}

/**
 * A dataset read in one forward pass, for data larger than memory (upstream
 * `StreamingSupervisedDatasetFromHFDataset`). Rows go through a seeded shuffle buffer; batches must be requested in
 * increasing order: skipping ahead consumes the rows in between (without converting them), going back is an error.
 */
export class StreamingSupervisedDataset<R> implements SupervisedDataset {
  readonly batchSize: number;
  readonly numRows: number;
  readonly bufferSize: number;
  private readonly open: () => Iterable<R>;
  private readonly toDatums: RowToDatums<R>;
  private seed = 0;
  private stream: Iterator<{ row: R; index: number }> | undefined;
  private nextBatch = 0;

  constructor(options: StreamingSupervisedDatasetOptions<R>) {
    checkBatchSize(options.batchSize);
    this.batchSize = options.batchSize;
    this.numRows = options.numRows;
    this.bufferSize = options.bufferSize ?? 10_000;
    this.open = options.open;
    this.toDatums = options.toDatums;
  }

  get length(): number {
    return Math.floor(this.numRows / this.batchSize);
  }

  setEpoch(seed: number): void {
    this.seed = seed;
    this.stream = undefined;
    this.nextBatch = 0;
  }

  private *shuffled(): Generator<{ row: R; index: number }> {
    const random = seededRandom(this.seed);
    const buffer: { row: R; index: number }[] = [];
    let index = 0;
    for (const row of this.open()) {
      const item = { row, index: index++ };
      if (this.bufferSize <= 1) {
        yield item;
        continue;
      }
      if (buffer.length < this.bufferSize) {
        buffer.push(item);
        continue;
      }
      const j = Math.floor(random() * buffer.length);
      const out = buffer[j]!;
      buffer[j] = item;
      yield out;
    }
    while (buffer.length > 0) {
      const j = Math.floor(random() * buffer.length);
      const out = buffer[j]!;
      buffer[j] = buffer[buffer.length - 1]!;
      buffer.pop();
      yield out;
    }
  }

  private take(n: number, index: number): { row: R; index: number }[] {
    this.stream ??= this.shuffled();
    const out: { row: R; index: number }[] = [];
    while (out.length < n) {
      const next = this.stream.next();
      if (next.done) {
        throw new DataError(
          `the stream ended inside batch ${index}: it yielded fewer rows than num_rows=${this.numRows}`,
        );
      }
      out.push(next.value);
    }
    return out;
  }

  getBatch(index: number): Datum[] {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) {
      throw new DataError(`batch index ${index} is out of range [0, ${this.length})`);
    }
    if (index < this.nextBatch) {
      throw new DataError(
        `a streaming dataset reads forward only: batch ${index} was requested after batch ${this.nextBatch - 1}; call setEpoch() to restart`,
      );
    }
    while (this.nextBatch < index) {
      this.take(this.batchSize, this.nextBatch);
      this.nextBatch++;
    }
    const items = this.take(this.batchSize, index);
    this.nextBatch++;
    const out: Datum[] = [];
    for (const { row, index: i } of items) pushDatums(out, this.toDatums(row, i));
    return out;
  }
}
