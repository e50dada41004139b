import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelInput } from '@cookbook/core';
import { type LocalTinker, startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import type { Recipe } from '../recipe.js';
import { checkpoint } from './checkpoint.js';
import { slBasic } from './sl-basic.js';

const ours: Recipe[] = [slBasic, checkpoint];

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

async function cli(args: string[]) {
  const c = capture();
  const code = await runCli(args, ours, c.io);
  return { code, out: c.out.join('\n'), err: c.err.join('\n') };
}

describe('cookbook checkpoint', () => {
  let server: LocalTinker;
  let dir: string;
  let samplerPath: string;
  let statePath: string;
  let runId: string;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-checkpoint-'));
    server = await startLocalTinker({ port: 0, root: join(dir, 'service') });
    url = server.baseURL;
    const logPath = join(dir, 'run');
    const trained = await cli([
      'sl_basic',
      `log_path=${logPath}`,
      `base_url=${url}`,
      'max_steps=3',
      'batch_size=4',
      'lora_rank=4',
      'learning_rate=0.01',
      'eval_every=0',
      'infrequent_eval_every=0',
      'behavior_if_log_dir_exists=raise',
    ]);
    expect(trained.code, trained.err).toBe(0);
    const last = readFileSync(join(logPath, 'checkpoints.jsonl'), 'utf8').trim().split('\n').at(-1)!;
    const rec = JSON.parse(last) as { sampler_path: string; state_path: string };
    samplerPath = rec.sampler_path;
    statePath = rec.state_path;
    runId = samplerPath.slice('tinker://'.length).split('/')[0]!;
  }, 600_000);
  afterAll(async () => {
    await server?.close();
  });

  it("a merged export of a trained sl_basic checkpoint, loaded as a base model, gives the LoRA checkpoint's logprobs", async () => {
    const out = join(dir, 'merged');
    const r = await cli([
      'checkpoint',
      'export',
      samplerPath,
      'format=merged',
      'dtype=float32',
      `out=${out}`,
      `base_url=${url}`,
    ]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`${samplerPath} → ${out} (merged, float32, base local/qwen3-tiny`);
    expect(readdirSync(out)).toEqual(expect.arrayContaining(['config.json', 'model.safetensors', 'tokenizer.json']));
    const client = new ServiceClient({ baseURL: url });
    try {
      const lora = await client.createSamplingClient({ modelPath: samplerPath });
      const merged = await client.createSamplingClient({ baseModel: out });
      const base = await client.createSamplingClient({ baseModel: 'local/qwen3-tiny' });
      const tokens = [9707, 11, 1246, 525, 498, 30, 358, 1079, 1661, 13, 576, 4226, 374, 220, 19, 17, 13];
      const a = await lora.computeLogprobs(ModelInput.fromInts(tokens));
      const b = await merged.computeLogprobs(ModelInput.fromInts(tokens));
      const c = await base.computeLogprobs(ModelInput.fromInts(tokens));
      let maxDiff = 0;
      let trainedShift = 0;
      for (let i = 1; i < tokens.length; i++) {
        maxDiff = Math.max(maxDiff, Math.abs(a[i]! - b[i]!));
        trainedShift = Math.max(trainedShift, Math.abs(a[i]! - c[i]!));
      }
      expect(trainedShift).toBeGreaterThan(1e-2); // training moved the model, so equality is not trivial
      expect(maxDiff).toBeLessThanOrEqual(1e-3);
    } finally {
      await client.close();
    }
  }, 300_000);

  it('lists runs and checkpoints as a table and as JSON, and shows one checkpoint', async () => {
    const table = await cli(['checkpoint', 'list', `run=${runId}`, `base_url=${url}`]);
    expect(table.code, table.err).toBe(0);
    expect(table.out).toMatch(/^PATH\s+TYPE\s+SIZE\s+SAVED\s+PUBLIC\s+EXPIRES$/m);
    expect(table.out).toContain(samplerPath);
    const json = await cli(['checkpoint', 'list', 'json=true', `base_url=${url}`]);
    const parsed = JSON.parse(json.out) as { checkpoints: { tinker_path: string }[]; total_count: number };
    expect(parsed.checkpoints.map((c) => c.tinker_path)).toEqual(expect.arrayContaining([samplerPath, statePath]));
    const runs = await cli(['checkpoint', 'list', 'runs=true', `base_url=${url}`]);
    expect(runs.out).toMatch(new RegExp(`${runId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+local/qwen3-tiny\\s+4`));
    const info = await cli(['checkpoint', 'info', samplerPath, 'json=true', `base_url=${url}`]);
    expect(JSON.parse(info.out)).toMatchObject({
      tinker_path: samplerPath,
      base_model: 'local/qwen3-tiny',
      lora_rank: 4,
    });
  });

  it('downloads to a folder, resumes a partial download, and exports PEFT from the folder', async () => {
    const out = join(dir, 'dl');
    const first = await cli(['checkpoint', 'download', samplerPath, `out=${out}`, `base_url=${url}`]);
    expect(first.code, first.err).toBe(0);
    expect(readdirSync(out)).toEqual(expect.arrayContaining(['adapter_config.json', 'adapter_model.safetensors']));
    // Resume: a .part holding the archive's first KiB (as an interrupted download leaves it) is continued from there.
    const client = new ServiceClient({ baseURL: url });
    try {
      const rest = await client.createRestClient();
      const whole = join(dir, 'whole.tar');
      const size = await rest.downloadCheckpointArchive(samplerPath, whole);
      const dest = join(dir, 'resumed.tar');
      writeFileSync(`${dest}.part`, readFileSync(whole).subarray(0, 1024));
      writeFileSync(`${dest}.part.json`, JSON.stringify({ tinker_path: samplerPath, total: size }));
      const seen: number[] = [];
      expect(await rest.downloadCheckpointArchive(samplerPath, dest, { onProgress: (d) => seen.push(d) })).toBe(size);
      expect(seen[0]).toBe(1024);
      expect(readFileSync(dest).equals(readFileSync(whole))).toBe(true);
      expect(existsSync(`${dest}.part`)).toBe(false);
    } finally {
      await client.close();
    }
    const again = await cli(['checkpoint', 'download', samplerPath, `out=${out}`, `base_url=${url}`]);
    expect(again.code).toBe(1);
    expect(again.err).toContain(`${out} already exists; choose another out= folder or pass overwrite=true`);
    const peft = join(dir, 'peft');
    const r = await cli(['checkpoint', 'export', out, 'format=peft', `out=${peft}`]);
    expect(r.code, r.err).toBe(0);
    const cfg = JSON.parse(readFileSync(join(peft, 'adapter_config.json'), 'utf8'));
    expect(cfg).toMatchObject({ r: 4, lora_alpha: 32, base_model_name_or_path: 'local/qwen3-tiny' });
  });

  it('ttl, publish, unpublish and delete act on the server', async () => {
    const ok = async (...args: string[]) => {
      const r = await cli(['checkpoint', ...args, `base_url=${url}`]);
      expect(r.code, r.err).toBe(0);
      return r.out;
    };
    expect(await ok('ttl', statePath, 'ttl_seconds=3600')).toBe(`${statePath} expires in 3600 s`);
    const listed = JSON.parse(await ok('info', statePath, 'json=true')) as { expires_at?: string };
    expect(Date.parse(listed.expires_at!)).toBeGreaterThan(Date.now());
    expect(await ok('ttl', statePath)).toBe(`${statePath} no longer expires`);
    expect(await ok('publish', statePath)).toBe(`${statePath} published`);
    expect((JSON.parse(await ok('info', statePath, 'json=true')) as { public: boolean }).public).toBe(true);
    expect(await ok('unpublish', statePath)).toBe(`${statePath} unpublished`);
    expect(await ok('delete', statePath)).toBe(`${statePath} deleted`);
    const gone = await cli(['checkpoint', 'info', statePath, `base_url=${url}`]);
    expect(gone.code).toBe(1);
    expect(gone.err).toContain(`cookbook: checkpoint info ${statePath}: `);
    expect(gone.err).toContain('does not exist');
  });

  it('names the checkpoint and the reason for bad input', async () => {
    const unknown = `tinker://${runId}/sampler_weights/nope`;
    const r1 = await cli(['checkpoint', 'download', unknown, `out=${join(dir, 'x')}`, `base_url=${url}`]);
    expect(r1.code).toBe(1);
    expect(r1.err).toMatch(
      new RegExp(`checkpoint download ${unknown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*404.*does not exist`),
    );
    const r2 = await cli(['checkpoint', 'list', 'run=no-such-run', `base_url=${url}`]);
    expect(r2.code).toBe(1);
    expect(r2.err).toMatch(/checkpoint list run=no-such-run: .*unknown training run "no-such-run"/);
    const r3 = await cli(['checkpoint', 'info', 'tinker://only-a-run', `base_url=${url}`]);
    expect(r3.code).toBe(1);
    expect(r3.err).toContain('"tinker://only-a-run" is not a checkpoint path');
    const r4 = await cli(['checkpoint', 'delete']);
    expect(r4.code).toBe(2);
    expect(r4.err).toContain('checkpoint delete needs a checkpoint');
    // A corrupt downloaded archive folder: the adapter's checksum no longer matches.
    const folder = join(dir, 'corrupt');
    expect((await cli(['checkpoint', 'download', samplerPath, `out=${folder}`, `base_url=${url}`])).code).toBe(0);
    const st = join(folder, 'adapter_model.safetensors');
    const bytes = readFileSync(st);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
    writeFileSync(st, bytes);
    const r5 = await cli(['checkpoint', 'export', folder, 'format=peft', `out=${join(dir, 'p2')}`]);
    expect(r5.code).toBe(1);
    expect(r5.err).toContain(`${st} is corrupt: its SHA-256 does not match`);
    // The wrong base model for the adapter.
    const r6 = await cli([
      'checkpoint',
      'export',
      samplerPath,
      'base=local/llama3-tiny',
      `out=${join(dir, 'm2')}`,
      `base_url=${url}`,
    ]);
    expect(r6.code).toBe(1);
    expect(r6.err).toMatch(/does not fit the base model .*\(the adapter was trained on "local\/qwen3-tiny"\)/);
    expect(existsSync(join(dir, 'm2'))).toBe(false);
  });
});
