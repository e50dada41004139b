import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ceDatum,
  json,
  post,
  request,
  result,
  servicesClosedAfterEach,
  sessionAndModel,
  submitAndWait,
} from './__tests__/direct.js';
import { isLoopback } from './local-tinker.js';
import type { LocalTinkerService } from './service.js';

const service = servicesClosedAfterEach();

const runsOf = (s: LocalTinkerService) => readdirSync(join(s.storage.root, 'runs'));

describe('checkpoint and run names cannot escape the root', () => {
  it('refuses ".", "..", leading dots and separators in save_weights (regression: path=".." deleted the run)', async () => {
    const s = await service();
    const { model } = await sessionAndModel(s);
    await submitAndWait(s, 'save_weights', { model_id: model, path: 'keep' });
    for (const path of ['..', '.', '.hidden', '../x', 'a/b', '']) {
      const r = await post(s, 'save_weights', { model_id: model, path, overwrite: true });
      expect(r.status, path).toBe(400);
      expect(String(json(r).detail)).not.toContain(s.storage.root);
    }
    for (const path of ['..', '.x']) {
      expect((await post(s, 'save_weights_for_sampler', { model_id: model, path })).status).toBe(400);
    }
    const runDir = join(s.storage.root, 'runs', encodeURIComponent(model));
    expect(readdirSync(join(runDir, 'weights'))).toEqual(['keep']);
    expect(existsSync(join(runDir, 'run.json'))).toBe(true);
  });

  it('REST routes refuse ".." as a run id or checkpoint name, and malformed percent-encoding is a 400', async () => {
    const s = await service();
    const { model } = await sessionAndModel(s);
    await submitAndWait(s, 'save_weights', { model_id: model, path: 'keep' });
    const run = encodeURIComponent(model);
    for (const [method, path] of [
      ['DELETE', `training_runs/${run}/checkpoints/weights/..`],
      ['DELETE', `training_runs/${run}/checkpoints/weights/.`],
      ['GET', 'training_runs/../checkpoints'],
      ['GET', 'training_runs/..'],
      ['DELETE', `training_runs/%2E%2E/checkpoints/weights/keep`],
      ['GET', 'training_runs/%zz'],
      ['GET', 'samplers/%E0%A4%A'],
    ] as const) {
      const r = await s.handle(request(method, path));
      expect(r.status, `${method} ${path}`).toBe(400);
    }
    expect(runsOf(s)).toEqual([run]);
    expect(json(await s.handle(request('GET', `training_runs/${run}/checkpoints`))).checkpoints).toHaveLength(1);
  });

  it('overwrite replaces only that checkpoint', async () => {
    const s = await service();
    const { model } = await sessionAndModel(s);
    await submitAndWait(s, 'save_weights', { model_id: model, path: 'a' });
    await submitAndWait(s, 'save_weights', { model_id: model, path: 'b' });
    const again = await submitAndWait(s, 'save_weights', { model_id: model, path: 'a', overwrite: true });
    expect(again.path).toBe(`tinker://${model}/weights/a`);
    expect(readdirSync(join(s.storage.root, 'runs', encodeURIComponent(model), 'weights')).sort()).toEqual(['a', 'b']);
    // A duplicate name fails the save's future as a user error (SDK 0.25 retries a 409 on submit for minutes).
    const conflict = await submitAndWait(s, 'save_weights', { model_id: model, path: 'b' });
    expect(conflict).toMatchObject({ category: 'user', error: expect.stringMatching(/already exists/) });
  });

  it('failures never show the server root', async () => {
    const s = await service();
    const { model } = await sessionAndModel(s);
    const saved = await submitAndWait(s, 'save_weights', { model_id: model, path: 'broken' });
    rmSync(join(s.storage.root, 'runs', encodeURIComponent(model), 'weights', 'broken', 'state'), {
      recursive: true,
    });
    const { model: fresh } = await sessionAndModel(s);
    const load = await submitAndWait(s, 'load_weights', { model_id: fresh, path: saved.path, seq_id: 1 });
    expect(load.category).toBe('user');
    expect(String(load.error)).toContain('<service root>');
    expect(String(load.error)).not.toContain(s.storage.root);
  });

  it('a checkpoint name with a leading dot is never written (regression: saved, then removed at the next start)', async () => {
    const s = await service();
    const { model } = await sessionAndModel(s);
    expect((await post(s, 'save_weights', { model_id: model, path: '.stash' })).status).toBe(400);
    await submitAndWait(s, 'forward_backward', {
      model_id: model,
      forward_backward_input: { loss_fn: 'cross_entropy', data: [ceDatum([1, 2, 3])] },
    });
  });
});

describe('loopback means a loopback address, not a host name that starts like one', () => {
  it('127.evil.example needs an API key; 127.0.0.1, ::1 and localhost do not', () => {
    expect(isLoopback('127.evil.example')).toBe(false);
    expect(isLoopback('127.0.0.1.nip.io')).toBe(false);
    expect(isLoopback('0.0.0.0')).toBe(false);
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) expect(isLoopback(h), h).toBe(true);
  });
});

describe('the service root stays under its cap', () => {
  it('prunes least recently used runs, never one that is loaded', async () => {
    const s = await service({ maxRootBytes: 1 });
    const { model } = await sessionAndModel(s);
    await submitAndWait(s, 'save_weights', { model_id: model, path: 'kept' });
    const root = s.storage.root;
    const old = join(root, 'runs', 'old-run');
    mkdirSync(old, { recursive: true });
    writeFileSync(
      join(old, 'run.json'),
      JSON.stringify({ training_run_id: 'old-run', last_request_time: '2020-01-01' }),
    );
    writeFileSync(join(old, 'blob'), Buffer.alloc(200_000));
    // Both runs look a year old to the pruner; only the loaded one must survive.
    const live = join(root, 'runs', encodeURIComponent(model));
    const record = JSON.parse(readFileSync(join(live, 'run.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(live, 'run.json'), JSON.stringify({ ...record, last_request_time: '2020-01-01T00:00:00Z' }));
    const past = new Date('2020-01-01');
    const age = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) age(join(dir, e.name));
        utimesSync(join(dir, e.name), past, past);
      }
      utimesSync(dir, past, past);
    };
    age(old);
    age(live);
    await s.prune();
    expect(runsOf(s)).toEqual([encodeURIComponent(model)]);
    const r = await result(s, json(await post(s, 'optim_step', { model_id: model, adam_params: {} })).request_id);
    expect(r).toHaveProperty('metrics');
  });
});
