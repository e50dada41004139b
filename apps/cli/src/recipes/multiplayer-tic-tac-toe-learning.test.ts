/**
 * `multiplayer env=tic_tac_toe` learns from its rewards: the recipe run end to end on the tiny built-in model as X
 * against a seeded random O, from one warm start (the rule player's moves, cached), against the control
 * `advantage_transform=zero` from that warm start (every advantage 0: only the drift of the warm start's Adam moments,
 * which the loop continues, moves the policy). Cut down from the recipe's defaults to fit CI: a 40-step warm start
 * instead of 100, 6 steps of 4 groups (32 games) instead of 20 steps of 2, learning rate 3e-3 instead of 1e-3.
 * Measured on this machine, `multiplayer env=tic_tac_toe warm_start_steps=40 max_steps=6 groups_per_batch=4
 * learning_rate=3e-3 seed=S advantage_transform=T`, `env/all/win` first third → last third:
 *   seed 0: learn 0.625 → 0.688, zero 0.594 → 0.594, negate 0.531 → 0.000
 *   seed 1: learn 0.344 → 0.531, zero 0.453 → 0.406, negate 0.438 → 0.094
 *   seed 2: learn 0.531 → 0.813, zero 0.500 → 0.578, negate 0.516 → 0.047
 *   seed 3: learn 0.375 → 0.516, zero 0.344 → 0.469, negate 0.359 → 0.141
 * Learn's last third ends 0.05–0.24 above zero's; its rise exceeds zero's by 0.02–0.23. The margins below sit under
 * the smallest seed's. The zero margin is thin (the last third is 64 games): it guards against the learner losing its
 * advantages (it would then equal the zero arm exactly), not a size of gain. A flipped sign fails it too: learn then
 * runs as the negated control, whose last third ends 0.31–0.59 below zero's in every seed above (the negated player
 * learns to make illegal moves), which is why the test runs no negated arm of its own (a third of its time, catching
 * nothing the zero margin does not). The earlier cut (9 steps of 2 groups) did not separate from zero: learn ended
 * 0.06 below it in one seed of four. The seed fixes the games, the warm start and the sampling, so the test repeats
 * exactly on one machine.
 */
import { describe, expect, it } from 'vitest';
import { curvesDetail, learningService } from './__tests__/learning-fixture.js';
import { multiplayerArms } from './__tests__/multiplayer-arms.js';

const service = learningService('tic-tac-toe-learning');

describe('multiplayer env=tic_tac_toe learns (on the embedded service)', () => {
  it('its win rate ends above the zero-advantage control from the same warm start, and rises more', async () => {
    const arms = await multiplayerArms(
      service,
      { env: 'tic_tac_toe', seed: 0, warmStartSteps: 40, maxSteps: 6, groupsPerBatch: 4, learningRate: 3e-3 },
      'env/all/win',
      ['zero'],
    );
    const { learn, zero } = arms;
    const detail = curvesDetail({ ...arms });
    expect(learn.last, detail).toBeGreaterThan(zero.last + 0.02);
    expect(learn.last - learn.first - (zero.last - zero.first), detail).toBeGreaterThan(0);
  }, 900_000);
});
