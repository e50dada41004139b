/**
 * Every CLI failure of issue 15, run through `runCli` as a user would: one `cookbook` line naming the key, path or
 * value, exit code 2 for a usage error and 1 for a runtime one, and nothing lost.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '@cookbook/core';
import { DEFAULT_LIMITS, startLocalTinker } from '@cookbook/local-tinker';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from './cli.js';
import { describeFailure } from './errors.js';
import { serve, serveOptions, serveSchema } from './recipes/serve.js';
import { slBasic } from './recipes/sl-basic.js';

async function run(args: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const code = await runCli(args, [slBasic, serve], { out: () => undefined, err: (t) => err.push(t) });
  return { code, err: err.join('\n') };
}

function dataset(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cli-fail-'));
  const file = join(dir, 'data.jsonl');
  writeFileSync(
    file,
    `${JSON.stringify({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
    })}\n`,
  );
  return file;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('usage errors exit 2 with one line naming the key', () => {
  it('a key given twice is an error, not last-wins', async () => {
    const r = await run(['sl_basic', 'max_steps=2', 'max_steps=3']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('max_steps is given twice; give each key once');
  });

  it('max_steps=1e999 is refused, not read as null', async () => {
    const r = await run(['sl_basic', 'max_steps=1e999']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('max_steps=1e999: expected a finite number');
  });

  it('behavior_if_log_dir_exists=delete refuses a log_path that is a regular file (the dataset) and keeps it', async () => {
    const file = dataset();
    const before = readFileSync(file, 'utf8');
    const r = await run([
      'sl_basic',
      `dataset=${file}`,
      `log_path=${file}`,
      'behavior_if_log_dir_exists=delete',
      'max_steps=1',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `cookbook: log_path ${file} is a file, not a folder; choose another log_path (nothing was changed)`,
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('resume into a file, and a log_path under a file, name the path', async () => {
    const file = dataset();
    const resume = await run([
      'sl_basic',
      `dataset=${file}`,
      `log_path=${file}`,
      'behavior_if_log_dir_exists=resume',
      'max_steps=1',
    ]);
    expect(resume.code).toBe(2);
    expect(resume.err).toContain(`log_path ${file} is a file, not a folder`);
    const under = await run(['sl_basic', `dataset=${file}`, `log_path=${join(file, 'run')}`, 'max_steps=1']);
    expect(under.code).toBe(2);
    expect(under.err).toBe(
      `cookbook: log_path ${join(file, 'run')} is inside ${file}, which is a file; choose another log_path`,
    );
  });

  it('serve on a host name that merely starts with 127. needs an API key', async () => {
    const r = await run(['serve', 'host=127.evil.example', 'port=0']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'cookbook: refusing to bind 127.evil.example without an API key: set api_key (or bind 127.0.0.1)',
    );
  });
});

describe('runtime failures exit 1 with one line', () => {
  it('an hf: dataset without a network says what to do instead', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo'), { code: 'ENOTFOUND' }) });
    });
    const dir = mkdtempSync(join(tmpdir(), 'cli-hf-'));
    const r = await run(['sl_basic', 'dataset=hf:org/name', `log_path=${join(dir, 'run')}`, 'max_steps=1']);
    expect(r.code).toBe(1);
    expect(r.err.split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^cookbook: cannot download dataset org\/name: the Hugging Face Hub is not reachable/);
  });

  it('serve on an unresolvable host names the host', async () => {
    const err = await startLocalTinker({
      host: 'no-such-host.invalid',
      apiKey: 'k',
      port: 0,
      root: mkdtempSync(join(tmpdir(), 'cli-host-')),
    }).catch((e: unknown) => e);
    expect(describeFailure(err)).toEqual({
      line: 'cookbook: cannot resolve the host name no-such-host.invalid: check host= (or your network)',
      exitCode: 1,
    });
  });
});

describe('cookbook serve options', () => {
  it('map onto the service: limits, session timeout, engine threads, root cap', () => {
    // The command line's snake_case keys, mapped onto the schema as cli.ts does.
    const parse = (args: string[]) => parseConfig(serveSchema, args, {}, { keyStyle: 'snake_case' });
    const config = parse([
      'max_num_samples=8',
      'max_body_mb=2',
      'session_timeout_s=60',
      'engine_threads=2',
      'max_root_gb=5',
    ]);
    const o = serveOptions(config, () => undefined);
    expect(o.limits).toMatchObject({ maxNumSamples: 8, maxBodyBytes: 2 * 1024 * 1024 });
    expect(o).toMatchObject({ sessionTimeoutMs: 60_000, engineThreads: 2, maxRootBytes: 5e9, maxRunAgeDays: null });
    const defaults = serveOptions(parse([]), () => undefined);
    expect(defaults).toMatchObject({ sessionTimeoutMs: 300_000, maxRootBytes: null, engineThreads: 1 });
    expect(defaults.limits).toEqual(DEFAULT_LIMITS);
    expect(defaults.clockCycleMs).toBeUndefined();
    const clocked = serveOptions(parse(['clock_cycle_ms=300', 'clock_cycle_log=c.jsonl']), () => {});
    expect(clocked).toMatchObject({ clockCycleMs: 300, clockCycleLogPath: 'c.jsonl' });
  });

  it('map the bounds on held memory and the model roots', () => {
    const parse = (args: string[]) => parseConfig(serveSchema, args, {}, { keyStyle: 'snake_case' });
    const o = serveOptions(
      parse([
        'max_seq_ahead=16',
        'max_queued_mb_per_model=8',
        'max_queued_mb=16',
        'max_model_mb=512',
        'idle_model_unload_s=30',
        'max_stop_sequences=4',
        'max_stop_chars=100',
        'max_concurrent_requests=8',
        'model_roots=/models, /srv/ckpt',
      ]),
      () => undefined,
    );
    expect(o.limits).toMatchObject({
      maxSeqAhead: 16,
      maxQueuedBytesPerModel: 8 * 1024 * 1024,
      maxQueuedBytes: 16 * 1024 * 1024,
      maxModelBytes: 512 * 1024 * 1024,
      idleModelUnloadMs: 30_000,
      maxStopSequences: 4,
      maxStopChars: 100,
      maxConcurrentRequests: 8,
    });
    expect(o.modelRoots).toEqual(['/models', '/srv/ckpt']);
    expect(serveOptions(parse(['model_roots=*']), () => undefined).modelRoots).toBe('any');
    // Default: decided by the bind address (any folder on loopback, none beyond it).
    expect(serveOptions(parse([]), () => undefined).modelRoots).toBeUndefined();
  });

  it('--help lists them in the command line spelling (snake_case)', async () => {
    const out: string[] = [];
    expect(await runCli(['serve', '--help'], [serve], { out: (t) => out.push(t), err: () => undefined })).toBe(0);
    const help = out.join('\n');
    for (const key of ['api_key', 'long_poll_ms', 'session_timeout_s', 'max_root_gb', 'max_topk_prompt_logprobs']) {
      expect(help).toMatch(new RegExp(`^  ${key} `, 'm'));
    }
    expect(help).not.toMatch(/apiKey|longPollMs/);
  });
});
