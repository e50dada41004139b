import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { collector, useTempDir } from './__fixtures__/test-utils.js';
import { readJsonl, readMetrics } from './jsonl.js';
import { setupLogging } from './metrics-logger.js';

const tmp = useTempDir();

const lines = (path: string) => readFileSync(path, 'utf8').split('\n');

class Client {
  x = 1;
}

describe('setupLogging JSON sink', () => {
  it('writes config.json atomically with non-serialisable values as type names', async () => {
    const logDir = join(tmp(), 'run');
    const logger = setupLogging({
      logDir,
      console: false,
      config: {
        lr: 1e-4,
        nested: { fn: function loss() {}, client: new Client(), big: 3n, nan: Number.NaN },
        list: [1, 'a'],
      },
    });
    await logger.close();
    const config = JSON.parse(readFileSync(join(logDir, 'config.json'), 'utf8'));
    expect(config).toEqual({
      lr: 1e-4,
      nested: { fn: 'function loss', client: 'Client', big: '3', nan: 'NaN' },
      list: [1, 'a'],
    });
    // Only the final file: the temp file was renamed into place.
    expect(readdirSync(logDir)).toEqual(['config.json']);
  });

  it('appends one {"step", ...metrics} object per line, no step key without a step', async () => {
    const logger = setupLogging({ logDir: tmp(), console: false });
    logger.logMetrics({ 'train/loss': 1.5, name: 'ckpt' }, 0);
    logger.logMetrics({ 'train/loss': 1.25, bad: Number.POSITIVE_INFINITY }, 1);
    logger.logMetrics({ 'test/loss': 2 });
    await logger.close();
    expect(lines(join(tmp(), 'metrics.jsonl'))).toEqual([
      '{"step":0,"train/loss":1.5,"name":"ckpt"}',
      '{"step":1,"train/loss":1.25,"bad":"Infinity"}',
      '{"test/loss":2}',
      '',
    ]);
  });

  it('is append-only across loggers on the same dir (resume)', async () => {
    const a = setupLogging({ logDir: tmp(), console: false });
    a.logMetrics({ loss: 1 }, 0);
    a.logMetrics({ loss: 0.5 }, 1);
    await a.close();
    const b = setupLogging({ logDir: tmp(), console: false });
    for (let i = 2; i < 200; i++) b.logMetrics({ loss: 1 / i }, i);
    await b.close();
    const { rows, truncated } = await readMetrics(join(tmp(), 'metrics.jsonl'));
    expect(truncated).toBeUndefined();
    expect(rows.map((r) => r.step)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('cuts a half-written last line before appending, with a warning', async () => {
    const path = join(tmp(), 'metrics.jsonl');
    writeFileSync(path, '{"step":0,"loss":1}\n{"step":1,"lo');
    const warn = collector();
    const logger = setupLogging({ logDir: tmp(), console: false, warn });
    logger.logMetrics({ loss: 0.5 }, 1);
    await logger.close();
    expect(readFileSync(path, 'utf8')).toBe('{"step":0,"loss":1}\n{"step":1,"loss":0.5}\n');
    expect(warn.text()).toMatch(/truncated line/);
  });

  it('keeps a complete last line that only lacks its newline', async () => {
    const path = join(tmp(), 'metrics.jsonl');
    writeFileSync(path, '{"step":0,"loss":1}');
    const logger = setupLogging({ logDir: tmp(), console: false });
    logger.logMetrics({ loss: 0.5 }, 1);
    await logger.close();
    expect(readFileSync(path, 'utf8')).toBe('{"step":0,"loss":1}\n{"step":1,"loss":0.5}\n');
  });

  it('prints a table per step to the console stream', async () => {
    const out = collector();
    const logger = setupLogging({ logDir: tmp(), console: out });
    logger.logMetrics({ loss: 0.123456789 }, 7);
    await logger.close();
    expect(out.text()).toContain('Step 7');
    expect(out.text()).toContain('0.123457');
  });

  it('warns when wandbProject is set without WANDB_API_KEY', async () => {
    const warn = collector();
    const logger = setupLogging({ logDir: tmp(), console: false, wandbProject: 'p', env: {}, warn });
    logger.logMetrics({ loss: 1 }, 0);
    await logger.close();
    expect(warn.text()).toMatch(/WANDB_API_KEY/);
    expect(logger.loggers).toHaveLength(1);
  });
});

describe('readMetrics / readJsonl', () => {
  it('skips and reports a truncated last line', async () => {
    const path = join(tmp(), 'metrics.jsonl');
    writeFileSync(path, '{"step":0,"loss":1}\n{"step":1,"loss":0.5}\n');
    appendFileSync(path, '{"step":2,"loss":0.2');
    const reported: number[] = [];
    const { rows, truncated } = await readMetrics(path, { onTruncated: (s) => reported.push(s.line) });
    expect(rows).toEqual([
      { step: 0, loss: 1 },
      { step: 1, loss: 0.5 },
    ]);
    expect(truncated?.line).toBe(3);
    expect(truncated?.text).toBe('{"step":2,"loss":0.2');
    expect(reported).toEqual([3]);
  });

  it('throws a DataError with file and line for a malformed middle line', async () => {
    const path = join(tmp(), 'bad.jsonl');
    writeFileSync(path, '{"a":1}\nnot json\n{"a":2}\n');
    const error = await readJsonl(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataError);
    expect((error as DataError).line).toBe(2);
    expect((error as DataError).message).toContain('bad.jsonl:2');
  });

  it('rejects metrics lines that are not objects', async () => {
    const path = join(tmp(), 'metrics.jsonl');
    writeFileSync(path, '[1,2]\n');
    await expect(readMetrics(path)).rejects.toBeInstanceOf(DataError);
  });
});

describe('concurrent appends', () => {
  it('never interleaves lines when two processes append at once', async () => {
    const { spawn } = await import('node:child_process');
    const path = join(tmp(), 'metrics.jsonl');
    const script = `const fs=require('node:fs');for(let i=0;i<400;i++)fs.appendFileSync(process.argv[1],JSON.stringify({step:i,who:process.argv[2],pad:'x'.repeat(300)})+'\\n')`;
    await Promise.all(
      ['a', 'b'].map(
        (who) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, ['-e', script, path, who], { stdio: 'ignore' });
            child.on('error', reject);
            child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
          }),
      ),
    );
    const { rows, truncated } = await readMetrics(path);
    expect(truncated).toBeUndefined();
    expect(rows).toHaveLength(800);
  });
});
