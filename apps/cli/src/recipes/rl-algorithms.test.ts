/** `algorithm=` on the RL recipes: bad combinations are refused before any service, warm start or log dir. */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { rlBasic } from './rl-basic.js';

async function refused(args: string[]): Promise<{ code: number; err: string; logPath: string }> {
  const logPath = join(mkdtempSync(join(tmpdir(), 'rl-algorithms-cli-')), 'run');
  const err: string[] = [];
  const code = await runCli(['rl_basic', ...args, `log_path=${logPath}`, 'base_url=http://127.0.0.1:9'], [rlBasic], {
    out: () => undefined,
    err: (t) => err.push(t),
  });
  return { code, err: err.join('\n'), logPath };
}

describe('rl_basic algorithm= errors', () => {
  it('names the key and value of a knob the preset cannot take', async () => {
    const a = await refused(['algorithm=gspo', 'loss_fn=cross_entropy']);
    expect(a.code).not.toBe(0);
    expect(a.err).toContain('loss_fn=cross_entropy: expected one of "importance_sampling", "ppo", "cispo", "dro"');
    const b = await refused(['algorithm=gspo', 'loss_fn=cispo']);
    expect(b.err).toContain('algorithm=gspo cannot take loss_fn=cispo: the preset is defined by loss_fn="ppo"');
    expect(existsSync(b.logPath)).toBe(false);
  });

  it('refuses rloo with groups of one and an inverted or negative clip range', async () => {
    const r = await refused(['algorithm=rloo', 'group_size=1']);
    expect(r.err).toContain('advantage_estimator=rloo (algorithm=rloo) needs group_size ≥ 2');
    expect(r.err).toContain('got group_size=1');
    const rpp = await refused(['algorithm=reinforce_pp', 'group_size=1']);
    expect(rpp.err).toContain(
      'advantage_estimator=reinforce_pp_baseline (algorithm=reinforce_pp) needs group_size ≥ 2',
    );
    const inv = await refused(['algorithm=ppo', 'loss_fn_config={"clip_low_threshold":1.3,"clip_high_threshold":1.2}']);
    expect(inv.err).toContain('clip_low_threshold=1.3 above clip_high_threshold=1.2: the range is inverted');
    const neg = await refused(['loss_fn=cispo', 'loss_fn_config={"clip_low_threshold":-1,"clip_high_threshold":4}']);
    expect(neg.err).toContain('loss_fn_config.clip_low_threshold=-1 is negative');
    expect(existsSync(r.logPath) || existsSync(inv.logPath) || existsSync(neg.logPath)).toBe(false);
  });
});
