/**
 * The offline `code_rl` learning signal reaches the loss: one step of the recipe end to end (the offline tasks graded
 * in the bubblewrap sandbox, a short cached warm start), in three arms from the same warm start and the same seed.
 * The arms sample the same rollouts (the weights are the warm start's until the first update), so their step-0
 * rewards are equal; the sandbox's grades differ within groups (`frac_groups_with_signal` > 0), the learner's loss is
 * not 0, `advantage_transform=zero` makes it exactly 0 and `negate` makes it the learner's with the sign flipped.
 * A reward that never reaches the advantages, or advantages that never reach the loss, fail it. The 3-seed proof
 * that the recipe learns is the bench (`pnpm --filter @cookbook/cli bench:code-rl`), too slow for CI.
 */
import { isolatedPythonAvailable } from '@cookbook/sandbox';
import { describe, expect, it } from 'vitest';
import { learningService, metricColumn } from './__tests__/learning-fixture.js';
import { codeRl, codeRlSchema } from './code-rl.js';

const service = learningService('code-rl-signal');
const run = isolatedPythonAvailable() || process.env.CI === 'true';

describe.runIf(run)('code_rl: the learning signal reaches the loss [bubblewrap]', () => {
  it('one step: rewards vary within groups; the loss is the learner’s, 0 under zero, sign-flipped under negate', async () => {
    const arm = async (advantageTransform: 'none' | 'zero' | 'negate') => {
      const logPath = service.logPath(advantageTransform);
      const config = codeRlSchema.parse({
        seed: 0,
        maxSteps: 1,
        groupsPerBatch: 2,
        groupSize: 6,
        warmStartSteps: 24,
        logPath,
        baseUrl: service.baseURL(),
        advantageTransform,
      });
      await codeRl.run(config, { out: () => {}, err: () => {} });
      const column = (m: string) => metricColumn(logPath, m, 1)[0]!;
      return {
        reward: column('env/all/reward/total'),
        signal: column('env/all/frac_groups_with_signal'),
        loss: column('loss:sum'),
      };
    };
    const learn = await arm('none');
    const zero = await arm('zero');
    const negate = await arm('negate');
    const detail = JSON.stringify({ learn, zero, negate });
    expect(learn.signal, detail).toBeGreaterThan(0);
    expect(learn.loss, detail).not.toBe(0);
    expect([zero.reward, negate.reward], detail).toEqual([learn.reward, learn.reward]);
    expect(Math.abs(zero.loss), detail).toBe(0);
    expect(negate.loss, detail).toBeCloseTo(-learn.loss, 6);
  }, 300_000);
});
