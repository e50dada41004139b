import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@cookbook/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ceDatum, directService, json, MODEL, post, result, sessionAndModel } from './__tests__/direct.js';
import { ManualTimers } from './__tests__/manual-timers.js';
import { clockOptionsFromEnv } from './embedded.js';
import type { LocalTinkerService } from './service.js';

// The clock runs on a manual time source: boundaries and cycle ends happen when the test lets time run
// (`timers.run(work)`) or fires the next timer itself, so no assertion depends on how fast the machine is.
const CYCLE_MS = 50;
const services: LocalTinkerService[] = [];
let timers = new ManualTimers();
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
  timers = new ManualTimers();
});

async function clocked(logPath?: string): Promise<LocalTinkerService> {
  const s = await directService({
    clockCycleMs: CYCLE_MS,
    clockTimers: timers,
    ...(logPath ? { clockCycleLogPath: logPath } : {}),
  });
  services.push(s);
  return s;
}

/** Wait for these futures while the clock's time runs. */
function results(s: LocalTinkerService, ids: string[]) {
  return timers.run(Promise.all(ids.map((id) => result(s, id))));
}

const fb = (model: string) => ({
  forward_backward_input: { data: [ceDatum([1, 2, 3, 4])], loss_fn: 'cross_entropy' },
  model_id: model,
});
const optim = (model: string) => ({ adam_params: { learning_rate: 1e-3 }, model_id: model });

/** Submit without waiting; returns the future id. */
async function submit(s: LocalTinkerService, path: string, body: unknown): Promise<string> {
  const r = await post(s, path, body);
  if (r.status !== 200) throw new Error(`${path} → ${r.status}: ${JSON.stringify(r.json)}`);
  return json(r).request_id as string;
}

/** The cycles (after `from`) that ran operations of `kind`. */
function cyclesWith(s: LocalTinkerService, kind: string, from = 0) {
  return s.clock!.records.slice(from).filter((r) => (r.ops[kind] ?? 0) > 0);
}

describe('the clock-cycle model', () => {
  it('runs a forward_backward and the optim_step submitted with it in one cycle, released together at its end', async () => {
    const s = await clocked();
    const { model } = await sessionAndModel(s);
    const from = s.clock!.records.length;
    const a = await submit(s, 'forward_backward', fb(model));
    const b = await submit(s, 'optim_step', optim(model));
    const seen: number[] = [];
    const [ra, rb] = await timers.run(
      Promise.all(
        [a, b].map((id) =>
          result(s, id).then((r) => {
            seen.push(timers.now());
            return r;
          }),
        ),
      ),
    );
    expect(ra).toMatchObject({ loss_fn_output_type: 'ArrayRecord' });
    expect(rb).toMatchObject({ type: 'optim_step' });
    const ran = s.clock!.records.slice(from);
    expect(ran).toHaveLength(1);
    expect(ran[0]!.ops).toEqual({ forwardBackward: 1, optimStep: 1 });
    expect(ran[0]!.released).toBe(2);
    // Neither result was visible before the cycle had lasted its full length.
    for (const t of seen) expect(t).toBeGreaterThanOrEqual(ran[0]!.startMs + CYCLE_MS);
  });

  it('an optim_step sent only after the forward_backward result misses that boundary and runs a later cycle', async () => {
    const s = await clocked();
    const { model } = await sessionAndModel(s);
    const from = s.clock!.records.length;
    await results(s, [await submit(s, 'forward_backward', fb(model))]);
    await results(s, [await submit(s, 'optim_step', optim(model))]);
    const [f, o] = [cyclesWith(s, 'forwardBackward', from), cyclesWith(s, 'optimStep', from)];
    expect(f).toHaveLength(1);
    expect(o).toHaveLength(1);
    // The boundary right after the fwd/bwd cycle (tick + 1) is where its result came out: the step was one cycle late.
    expect(o[0]!.tick).toBe(f[0]!.tick + 2);
  });

  it('a model takes one optimizer step per cycle: a second step submitted at once runs in the next cycle', async () => {
    const s = await clocked();
    const { model } = await sessionAndModel(s);
    const from = s.clock!.records.length;
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      ids.push(await submit(s, 'forward_backward', fb(model)));
      ids.push(await submit(s, 'optim_step', optim(model)));
    }
    await results(s, ids);
    const ran = s.clock!.records.slice(from);
    expect(ran.map((r) => r.ops)).toEqual([
      { forwardBackward: 1, optimStep: 1 },
      { forwardBackward: 1, optimStep: 1 },
    ]);
    expect(ran[1]!.tick).toBe(ran[0]!.tick + 1);
  });

  it('work submitted while a cycle runs waits for the next boundary; requests keep their seq order', async () => {
    const s = await clocked();
    const { model } = await sessionAndModel(s);
    const from = s.clock!.records.length;
    const first = await submit(s, 'forward_backward', fb(model));
    expect(timers.fireNext()).toBe(true); // the boundary: the first cycle starts
    expect(s.clock!.active).toBe(true);
    // The cycle cannot end before its time is up, and time stands still until the test lets it run.
    const second = await submit(s, 'forward_backward', fb(model));
    const third = await submit(s, 'optim_step', optim(model));
    await results(s, [first, second, third]);
    const ran = s.clock!.records.slice(from);
    expect(ran.map((r) => r.ops)).toEqual([{ forwardBackward: 1 }, { forwardBackward: 1, optimStep: 1 }]);
    // The second cycle started at the first one's end (work was waiting), not a grid period later.
    expect(ran[1]!.tick).toBe(ran[0]!.tick + 1);
  });

  it('logs each cycle as one JSON line', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'clock-log-')), 'cycles.jsonl');
    const s = await clocked(log);
    const { model } = await sessionAndModel(s);
    const ids = [await submit(s, 'forward_backward', fb(model)), await submit(s, 'optim_step', optim(model))];
    await results(s, ids);
    const last = s.clock!.records.at(-1)!;
    await s.close();
    services.length = 0;
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBe(s.clock!.records.length);
    expect(lines.at(-1)).toMatchObject({ cycle: last.tick, ops: { forwardBackward: 1, optimStep: 1 }, released: 2 });
    expect(lines.at(-1)!.duration_ms).toBeGreaterThanOrEqual(CYCLE_MS);
    expect(lines.at(-1)!.start).toBe(new Date(last.startMs).toISOString());
  });

  describe('sampling is not clocked (hosted: sampler workers, outside the training clock)', () => {
    // Time stands still unless the test lets it run, so "answered before the boundary / the cycle's end" cannot pass
    // by luck of timing: no boundary or cycle end can happen while a sample is awaited.
    const sampleBody = (sampler: string, seed: number) => ({
      prompt: { chunks: [{ tokens: [1, 2, 3] }] },
      sampling_params: { max_tokens: 3, seed, stop: [] },
      sampling_session_id: sampler,
    });
    async function longClock() {
      const s = await clocked();
      const { session, model } = await sessionAndModel(s);
      const sampler = json(
        await post(s, 'create_sampling_session', {
          session_id: session,
          sampling_session_seq_id: 0,
          base_model: MODEL,
        }),
      ).sampling_session_id as string;
      // Load the sampler's weights now, so the timed samples below do not include that.
      await result(s, await submit(s, 'asample', sampleBody(sampler, 0)));
      return { s, model, sampler };
    }

    it('a sample sent while the clock is idle runs at once, not at the next boundary, and in no cycle', async () => {
      const { s, sampler } = await longClock();
      const from = s.clock!.records.length;
      const ids = await Promise.all([1, 2, 3].map((seed) => submit(s, 'asample', sampleBody(sampler, seed))));
      // Awaited with time standing still: a sample held for a boundary would never be answered.
      const out = await Promise.all(ids.map((id) => result(s, id)));
      expect(timers.waiting).toBe(0);
      for (const r of out) expect((r.sequences as { tokens: number[] }[])[0]!.tokens).toHaveLength(3);
      // No cycle started for them: they were neither held for a boundary nor released at a cycle's end.
      expect(s.clock!.records.length).toBe(from);
      expect(s.clock!.active).toBe(false);
      for (const r of s.clock!.records) expect(r.ops.sample).toBeUndefined();
    });

    it('a sample sent while a training cycle runs is answered before that cycle ends', async () => {
      const { s, model, sampler } = await longClock();
      const from = s.clock!.records.length;
      const order: string[] = [];
      const ids = [await submit(s, 'forward_backward', fb(model)), await submit(s, 'optim_step', optim(model))];
      const trained = Promise.all(ids.map((id) => result(s, id).then(() => order.push('trained'))));
      expect(timers.fireNext()).toBe(true); // the boundary: the training cycle starts
      expect(s.clock!.active).toBe(true);
      const sampled = await result(s, await submit(s, 'asample', sampleBody(sampler, 7)));
      order.push('sampled');
      // The training cycle is still running (its time has not moved) when the sample's answer is out.
      expect(s.clock!.active).toBe(true);
      expect((sampled.sequences as { tokens: number[] }[])[0]!.tokens).toHaveLength(3);
      await timers.run(trained);
      const ran = s.clock!.records.slice(from);
      expect(ran.map((r) => r.ops)).toEqual([{ forwardBackward: 1, optimStep: 1 }]);
      expect(ran[0]!.durationMs).toBeGreaterThanOrEqual(CYCLE_MS);
      expect(order).toEqual(['sampled', 'trained', 'trained']);
    });

    it('a save_weights_for_sampler behind an optim_step is released with the cycle, not before the step', async () => {
      const { s, model } = await longClock();
      const from = s.clock!.records.length;
      const ids = [
        await submit(s, 'forward_backward', fb(model)),
        await submit(s, 'optim_step', optim(model)),
        await submit(s, 'save_weights_for_sampler', { model_id: model, path: 'step1' }),
      ];
      const done = Promise.all(ids.map((id) => result(s, id).then(() => timers.now())));
      expect(timers.fireNext()).toBe(true); // the boundary: the cycle starts
      // Its time stands still until all three are done and held (the save too: it finishes while the cycle runs).
      while (s.clock!.holding < 3) await new Promise((r) => setTimeout(r, 5));
      expect(s.clock!.active).toBe(true);
      const at = await timers.run(done);
      const ran = s.clock!.records.slice(from);
      expect(ran).toHaveLength(1);
      expect(ran[0]!.released).toBe(3);
      // The save is not a phase of the cycle (it waited for no boundary of its own) but came out with the step.
      expect(ran[0]!.ops).toEqual({ forwardBackward: 1, optimStep: 1 });
      for (const t of at) expect(t).toBeGreaterThanOrEqual(ran[0]!.startMs + CYCLE_MS);
    });
  });

  it('reads the embedded service clock from the environment and names the variable when it is wrong', () => {
    expect(clockOptionsFromEnv({})).toEqual({});
    expect(clockOptionsFromEnv({ COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_MS: '0' })).toEqual({});
    expect(
      clockOptionsFromEnv({
        COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_MS: '300',
        COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_LOG: 'c.jsonl',
      }),
    ).toEqual({ clockCycleMs: 300, clockCycleLogPath: 'c.jsonl' });
    expect(() => clockOptionsFromEnv({ COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_MS: 'fast' })).toThrow(ConfigError);
    expect(() => clockOptionsFromEnv({ COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_MS: '-5' })).toThrow(
      /COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_MS must be a cycle length in ms \(0 = off\), got "-5"/,
    );
  });
});
