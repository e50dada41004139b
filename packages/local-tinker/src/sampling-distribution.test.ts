/**
 * The service samples from the tempered, filtered softmax of the model's next-token logits (regression: the engine's
 * fast path could ignore `temperature` and every service test passed). The distribution comes from the service's
 * own top-k prompt logprobs of the same prefix; the draws are seeded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directService, MODEL, submitAndWait } from './__tests__/direct.js';
import type { LocalTinkerService } from './service.js';

const PREFIX = [40, 1079];
const PER_REQUEST = 128;

let s: LocalTinkerService;
/** The top 64 (token, probability) of the token after PREFIX, most likely first. */
let top: [number, number][];
beforeAll(async () => {
  s = await directService();
  const out = await submitAndWait(s, 'asample', {
    base_model: MODEL,
    prompt: { chunks: [{ tokens: [...PREFIX, 13] }] },
    topk_prompt_logprobs: 64,
    sampling_params: { max_tokens: 1 },
  });
  const rows = out.topk_prompt_logprobs as [number, number][][];
  top = rows[PREFIX.length]!.map(([t, lp]) => [t, Math.exp(lp)]);
});
afterAll(async () => {
  await s.close();
});

/** `requests` × PER_REQUEST seeded first tokens after PREFIX, as a count per token (and the total in `n`). */
async function draws(
  params: Record<string, unknown>,
  requests: number,
): Promise<{ counts: Map<number, number>; n: number }> {
  const counts = new Map<number, number>();
  for (let r = 0; r < requests; r++) {
    const out = await submitAndWait(s, 'asample', {
      base_model: MODEL,
      prompt: { chunks: [{ tokens: PREFIX }] },
      num_samples: PER_REQUEST,
      sampling_params: { max_tokens: 1, stop: [], seed: 4700 + r, ...params },
    });
    for (const seq of out.sequences as { tokens: number[] }[]) {
      counts.set(seq.tokens[0]!, (counts.get(seq.tokens[0]!) ?? 0) + 1);
    }
  }
  return { counts, n: requests * PER_REQUEST };
}

/** Every listed token's frequency within 5 standard deviations (+ `slack`) of its probability. */
function expectAgree(
  { counts, n }: { counts: Map<number, number>; n: number },
  expected: Map<number, number>,
  slack = 0,
): void {
  const off: string[] = [];
  for (const [t, q] of expected) {
    const f = (counts.get(t) ?? 0) / n;
    const bound = 5 * Math.sqrt((q * (1 - q)) / n) + 1 / n + slack;
    if (Math.abs(f - q) > bound)
      off.push(`token ${t}: drawn ${f.toFixed(4)}, expected ${q.toFixed(4)} ± ${bound.toFixed(4)}`);
  }
  expect(off).toEqual([]);
}

describe('the service samples the tempered, filtered softmax', () => {
  it('temperature 0.5 alone (the fast path): the top tokens at p^2 / Σ p^2, within a statistical bound', async () => {
    // The tokens past the top 64 add at most (their mass) × (the 64th probability) to Σ p^2.
    const head = top.reduce((a, [, p]) => a + p * p, 0);
    const tailMass = 1 - top.reduce((a, [, p]) => a + p, 0);
    const tailBound = (tailMass * top.at(-1)![1]) / head;
    const expected = new Map(top.slice(0, 8).map(([t, p]) => [t, (p * p) / head]));
    // Not the untempered distribution (which the test must tell apart).
    expect(expected.get(top[0]![0])! - top[0]![1]).toBeGreaterThan(0.2);
    expectAgree(await draws({ temperature: 0.5 }, 8), expected, tailBound);
  });

  it('temperature 1.5 with top_k 20, and with top_p 0.6 over what top-k kept: exact from the top 20', async () => {
    const k = top.slice(0, 20).map(([t, p]) => [t, p ** (1 / 1.5)] as const);
    const z = k.reduce((a, [, w]) => a + w, 0);
    const topK = new Map(k.map(([t, w]) => [t, w / z]));
    expectAgree(await draws({ temperature: 1.5, top_k: 20 }, 4), topK);
    let mass = 0;
    const kept: [number, number][] = [];
    for (const [t, q] of topK) {
      kept.push([t, q]);
      mass += q;
      if (mass >= 0.6) break;
    }
    const topP = new Map([...topK.keys()].map((t) => [t, 0]));
    for (const [t, q] of kept) topP.set(t, q / mass);
    expectAgree(await draws({ temperature: 1.5, top_k: 20, top_p: 0.6 }, 4), topP);
  });
});
