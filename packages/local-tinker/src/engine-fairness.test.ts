/**
 * One engine worker shares itself between samplers and training: a long sample on one sampler does not hold back a
 * short sample on another sampler or a training step (they take turns of a few decode steps), and a seeded sample
 * gives the same tokens whatever decodes beside it. Asserted by completion order, never by time.
 */
import { describe, expect, it } from 'vitest';
import {
  ceDatum,
  type Json,
  json,
  MODEL,
  post,
  result,
  servicesClosedAfterEach,
  sessionAndModel,
  submitAndWait,
} from './__tests__/direct.js';

const service = servicesClosedAfterEach({ abort: true });

/** Tokens the long request may decode: far more than the short ones need while it runs (it is cancelled). */
const LONG = 1000;

describe('the engine worker takes turns between samplers and training', () => {
  it('a 4-token sample on another sampler and a forward_backward finish while a long sample still decodes', async () => {
    const s = await service();
    const { session, model } = await sessionAndModel(s);
    const samplerFor = async (seq: number) =>
      json(
        await post(s, 'create_sampling_session', {
          session_id: session,
          sampling_session_seq_id: seq,
          base_model: MODEL,
        }),
      ).sampling_session_id as string;
    const a = await samplerFor(0);
    const b = await samplerFor(1);
    const small = {
      prompt: { chunks: [{ tokens: [5, 6, 7] }] },
      num_samples: 2,
      sampling_params: { max_tokens: 4, seed: 31, temperature: 0.7, stop: [] },
      sampling_session_id: b,
    };
    // Both samplers loaded (and the worker started) before the long request goes in.
    for (const sampler of [a, b]) {
      await submitAndWait(s, 'asample', {
        prompt: { chunks: [{ tokens: [1] }] },
        sampling_params: { max_tokens: 1 },
        sampling_session_id: sampler,
      });
    }
    const long = await post(s, 'asample', {
      prompt: { chunks: [{ tokens: [1, 2, 3] }] },
      num_samples: 8,
      sampling_params: { max_tokens: LONG, stop: [], seed: 3 },
      sampling_session_id: a,
    });
    expect(long.status).toBe(200);
    const longId = json(long).request_id;
    let longOutcome: Json | undefined;
    const longDone = result(s, longId).then((r) => {
      longOutcome = r;
    });
    // Queued behind the long one: the worker has it before these two arrive.
    const steps = s.decodeSteps;
    while (s.decodeSteps < steps + 2) await new Promise((r) => setTimeout(r, 5));
    const [short, trained] = await Promise.all([
      submitAndWait(s, 'asample', small),
      submitAndWait(s, 'forward_backward', {
        model_id: model,
        forward_backward_input: { data: [ceDatum([3, 9, 4, 1, 7])], loss_fn: 'cross_entropy' },
      }),
    ]);
    expect(short.type, JSON.stringify(short)).toBe('sample');
    expect(trained.loss_fn_outputs, JSON.stringify(trained)).toHaveLength(1);
    expect(longOutcome, 'the long sample finished before the short requests').toBeUndefined();
    expect(json(await post(s, 'cancel_future', { request_id: longId })).cancelled).toBe(true);
    await longDone;
    expect(longOutcome).toMatchObject({ category: 'user' });
    expect(s.decodeSteps - steps).toBeLessThan(LONG);
    // The same seeded request alone gives the same tokens as beside the long one.
    expect(await submitAndWait(s, 'asample', small)).toEqual(short);
  });
});
