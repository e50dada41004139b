/**
 * Which waiting sample requests join a sampler's decoding batch (continuous batching in `engine-worker.ts`), so that
 * large requests cannot starve small ones. Invariants:
 * - a request joins only if the batch's working memory stays within its `maxBytes` and its sequences within
 *   {@link MAX_BATCH_SEQUENCES}, except that an empty batch always takes its first request (the request's own size
 *   was bounded when it was submitted);
 * - a request that does not fit does not hold back the smaller requests behind it (they may pass it);
 * - a small request (at most {@link SMALL_REQUEST_SEQUENCES} sequences) may also use {@link RESERVED_SEQUENCES}
 *   slots beyond {@link MAX_BATCH_SEQUENCES}: a batch filled by large requests still takes it at the next step;
 * - a request passed over by {@link MAX_PASSES} later ones stops the others from passing it (only the small lane
 *   stays open), so a stream of small requests cannot starve a large one either: it joins once sequences leave.
 */

/** Most sequences decoding together in one batch (small requests may add {@link RESERVED_SEQUENCES}). */
export const MAX_BATCH_SEQUENCES = 64;
/** Slots beyond {@link MAX_BATCH_SEQUENCES} kept for small requests. */
export const RESERVED_SEQUENCES = 16;
/** A request of at most this many sequences is small. */
export const SMALL_REQUEST_SEQUENCES = 4;
/** How many later requests may pass a waiting one before it blocks them. */
export const MAX_PASSES = 8;

/** A request waiting to join, as admission sees it. */
export interface WaitingSample {
  /** Sequences it decodes (`num_samples`). */
  seqs: number;
  /** Longest sequence it may reach (prompt + max_tokens + 1). */
  len: number;
  /** Largest working memory of a batch it is in, bytes. */
  maxBytes: number;
  /** How many later requests joined while it waited (updated by {@link admit}). */
  passes: number;
}

/** The batch as it is: its sequences and the longest of their lengths. */
export interface BatchShape {
  seqs: number;
  maxLen: number;
  /** Requests decoding in it. */
  members: number;
}

/**
 * The indices (ascending) of `waiting` that join `batch` now. `bytes(seqs, len)` is the batch's working memory for
 * that many sequences of that length. Updates `passes` of the requests left waiting.
 */
export function admit(
  waiting: readonly WaitingSample[],
  batch: BatchShape,
  bytes: (seqs: number, len: number) => number,
): number[] {
  let { seqs, maxLen, members } = batch;
  const joined: number[] = [];
  let blocked = false;
  const left: WaitingSample[] = [];
  for (let i = 0; i < waiting.length; i++) {
    const w = waiting[i]!;
    const total = seqs + w.seqs;
    const len = Math.max(maxLen, w.len);
    const memoryFits = bytes(total, len) <= w.maxBytes;
    const small = w.seqs <= SMALL_REQUEST_SEQUENCES && total <= MAX_BATCH_SEQUENCES + RESERVED_SEQUENCES;
    const fits = members === 0 || (memoryFits && ((!blocked && total <= MAX_BATCH_SEQUENCES) || small));
    if (!fits) {
      left.push(w);
      if (w.passes >= MAX_PASSES) blocked = true;
      continue;
    }
    joined.push(i);
    seqs = total;
    maxLen = len;
    members++;
    for (const l of left) l.passes++;
  }
  return joined;
}
