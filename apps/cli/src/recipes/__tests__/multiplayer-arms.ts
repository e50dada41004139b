/**
 * The arms of a `multiplayer` learning test: the recipe run end to end through its run function with one game's
 * settings, learning (`advantage_transform=none`) and its controls from the same cached warm start (`zero`:
 * every advantage 0, so only drift moves the policy; `negate`: every advantage's sign flipped).
 */
import { expect } from 'vitest';
import { multiplayer, multiplayerSchema } from '../multiplayer.js';
import { type Curve, curve, type LearningService, metricColumn } from './learning-fixture.js';

export type Control = 'zero' | 'negate';

/**
 * Runs learn, then each of `controls` (learn first: it trains the warm start the controls then load), and reads
 * `metric` from each run.
 */
export async function multiplayerArms<C extends Control>(
  service: LearningService,
  settings: Record<string, unknown> & { env: string; maxSteps: number },
  metric: string,
  controls: readonly C[],
): Promise<{ learn: Curve } & Record<C, Curve>> {
  const run = async (arm: 'none' | 'zero' | 'negate') => {
    const logPath = service.logPath(`${settings.env}-${arm}`);
    const out: string[] = [];
    const config = multiplayerSchema.parse({
      ...settings,
      logPath,
      baseUrl: service.baseURL(),
      advantageTransform: arm,
    });
    await multiplayer.run(config, { out: (t) => out.push(t), err: () => {} });
    // One warm start: the controls load the learner's cached one.
    expect(out.join('\n')).toMatch(arm === 'none' ? /warm start: trained in/ : /warm start: cached in/);
    return curve(metricColumn(logPath, metric, settings.maxSteps));
  };
  const arms: Record<string, Curve> = { learn: await run('none') };
  for (const control of controls) arms[control] = await run(control);
  return arms as { learn: Curve } & Record<C, Curve>;
}
