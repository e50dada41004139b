import { describe, expect, it } from 'vitest';
import {
  admit,
  MAX_BATCH_SEQUENCES,
  MAX_PASSES,
  RESERVED_SEQUENCES,
  SMALL_REQUEST_SEQUENCES,
  type WaitingSample,
} from './batch-admission.js';

const req = (seqs: number, len = 100, maxBytes = Number.POSITIVE_INFINITY): WaitingSample => ({
  seqs,
  len,
  maxBytes,
  passes: 0,
});
/** Working memory: one byte per sequence position. */
const bytes = (seqs: number, len: number) => seqs * len;

describe('batch admission', () => {
  it('an empty batch takes its first request whatever its size, then what fits behind it', () => {
    expect(admit([req(200), req(1)], { seqs: 0, maxLen: 0, members: 0 }, bytes)).toEqual([0]);
    expect(admit([req(32), req(32), req(32)], { seqs: 0, maxLen: 0, members: 0 }, bytes)).toEqual([0, 1]);
  });

  it('a small request passes a large one that does not fit, and joins a full batch through the reserved lane', () => {
    const full = { seqs: MAX_BATCH_SEQUENCES, maxLen: 100, members: 2 };
    const waiting = [req(32), req(1), req(SMALL_REQUEST_SEQUENCES + 1), req(SMALL_REQUEST_SEQUENCES)];
    expect(admit(waiting, full, bytes)).toEqual([1, 3]);
    expect(waiting[0]!.passes).toBe(2);
    expect(waiting[2]!.passes).toBe(1);
    // The lane is bounded: small requests beyond it wait too.
    const lane = Array.from({ length: RESERVED_SEQUENCES + 2 }, () => req(1));
    expect(admit(lane, full, bytes)).toHaveLength(RESERVED_SEQUENCES);
  });

  it('memory bounds every join, the small lane included', () => {
    const batch = { seqs: 10, maxLen: 100, members: 1 };
    expect(admit([req(1, 100, 1_000)], batch, bytes)).toEqual([]);
    expect(admit([req(1, 100, 1_100)], batch, bytes)).toEqual([0]);
    // A longer request raises the batch's length for everyone.
    expect(admit([req(1, 1_000, 1_100)], batch, bytes)).toEqual([]);
  });

  it('a request passed over MAX_PASSES times blocks the main lane, so small requests cannot starve it', () => {
    const batch = { seqs: 40, maxLen: 100, members: 1 };
    const large = req(32);
    large.passes = MAX_PASSES;
    // Room for a request of 5 sequences in the main lane, but it would pass the starved one: it waits; a request of
    // SMALL_REQUEST_SEQUENCES still takes the reserved lane.
    expect(admit([large, req(5), req(SMALL_REQUEST_SEQUENCES)], batch, bytes)).toEqual([2]);
    // Not yet starved: the request of 5 passes.
    expect(admit([req(32), req(5)], batch, bytes)).toEqual([1]);
  });
});
