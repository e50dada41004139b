/**
 * `shorter` learns what its judge prefers: run end to end through its run function on the tiny built-in model, from
 * one warm start on replies of mixed length (cached, so both runs share it), against the control
 * `advantage_transform=zero` (every advantage 0: only drift moves the length). Cut down from the recipe's defaults to
 * fit CI: a 10-step warm start instead of 40, 4 groups of 4 a step instead of 8, 9 steps instead of 12. Measured on
 * this machine, `shorter warm_start_steps=10 groups_per_batch=4 max_steps=9 seed=S advantage_transform=T`,
 * `env/all/reply_chars` (mean reply length in characters) first third → last third:
 *   seed 0: learn 19.0 → 0.0, zero 40.3 → 38.6, negate 71.0 → 191.0
 *   seed 1: learn 28.7 → 1.0, zero 63.1 → 67.1, negate 83.1 → 130.6
 *   seed 2: learn 18.6 → 1.0, zero 45.3 → 54.4, negate 52.1 → 127.5
 * The learner ends 39–66 characters below zero and falls 17–32 characters more than zero does (zero moves −9 to +2).
 * The margins below (20 below zero, 10 more fall than zero) sit under the smallest seed's figures. Advantages lost on
 * the way to the loss make the learner the zero arm itself; a flipped sign (every tournament score's sign flipped:
 * longer replies win) makes it the negated control (`negate` above, same seed and warm start: its last third ends
 * 64–152 characters above zero's in every seed), so both fail the zero margin. That is why the test runs no negated
 * arm of its own: it would cost a third of the test and catch nothing the zero margin does not. The learner's replies
 * end (near) empty: the judge prefers the shorter reply, and the empty one is the shortest. The seed fixes the
 * prompts, the warm start and the sampling, so the test repeats exactly on one machine.
 */
import { describe, expect, it } from 'vitest';
import { curve, curvesDetail, learningService, metricColumn } from './__tests__/learning-fixture.js';
import { shorter, shorterSchema } from './shorter.js';

const service = learningService('shorter-learning');
const TEST_STEPS = 9;

/** Runs shorter cut down (seed 0); returns the mean reply length per step and what it printed on stderr. */
async function runShorter(name: string, advantageTransform: 'none' | 'zero') {
  const logPath = service.logPath(name);
  const err: string[] = [];
  const config = shorterSchema.parse({
    logPath,
    baseUrl: service.baseURL(),
    seed: 0,
    maxSteps: TEST_STEPS,
    groupsPerBatch: 4,
    warmStartSteps: 10,
    advantageTransform,
  });
  await shorter.run(config, { out: () => {}, err: (t) => err.push(t) });
  return { ...curve(metricColumn(logPath, 'env/all/reply_chars', TEST_STEPS)), err: err.join('\n') };
}

describe('shorter learns (on the embedded service)', () => {
  it('its replies shorten below the zero-advantage control from the same warm start, and more than it', async () => {
    const learn = await runShorter('learn', 'none');
    const zero = await runShorter('zero', 'zero');
    // One warm start: the control loads the learner's cached one.
    expect(zero.err).toMatch(/warm start \(cached\)/);
    const detail = curvesDetail({ learn, zero }, 2);
    // Shorter is better: the learner's last third is at least 20 characters below zero's last third, and it falls at
    // least 10 characters more from its first third than the zero control does.
    expect(learn.last, detail).toBeLessThan(zero.last - 20);
    expect(learn.first - learn.last - (zero.first - zero.last), detail).toBeGreaterThan(10);
  }, 600_000);
});
