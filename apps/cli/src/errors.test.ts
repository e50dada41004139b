import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { ConfigError, DataError, TrainingError } from '@cookbook/core';
import { startLocalTinker } from '@cookbook/local-tinker';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { describeFailure } from './errors.js';
import { slBasic } from './recipes/sl-basic.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('CLI failures are one line with an exit code', () => {
  it('usage errors exit 2, runtime errors 1, both without the class name noise', () => {
    expect(describeFailure(new ConfigError('max_steps=1e999: expected a finite number'))).toEqual({
      line: 'cookbook: max_steps=1e999: expected a finite number',
      exitCode: 2,
    });
    expect(describeFailure(new DataError('bad role', { file: 'd.jsonl', line: 3 }))).toEqual({
      line: 'cookbook: d.jsonl:3: bad role',
      exitCode: 1,
    });
    expect(describeFailure(new TrainingError('x'))?.exitCode).toBe(1);
  });

  it('a dataset path that is a folder names the folder', async () => {
    const dir = mkdtempSync(`${tmpdir()}/ds-`);
    expect(describeFailure(thrown(() => readFileSync(dir)))?.line).toMatch(
      /^cookbook: a folder was given where a file is needed/,
    );
    const err: string[] = [];
    const code = await runCli(['sl_basic', `dataset=${dir}`], [slBasic], { out: () => {}, err: (t) => err.push(t) });
    expect(code).toBe(2);
    expect(err.join('\n')).toContain(`dataset=${dir}: ${dir} is a folder; give a .jsonl or .parquet file`);
  });

  it('serve on a port in use names the port', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const err = await startLocalTinker({ port, root: mkdtempSync(`${tmpdir()}/svc-`) }).catch((e: unknown) => e);
    await new Promise((r) => blocker.close(r));
    expect(describeFailure(err)?.line).toBe(
      `cookbook: port ${port} on 127.0.0.1 is already in use: choose another port= (0 picks a free one)`,
    );
  });

  it('control characters from a bad dataset line are escaped, never sent to the terminal (regression: ESC and BEL)', async () => {
    const dir = mkdtempSync(`${tmpdir()}/ds-`);
    const file = `${dir}/bad.jsonl`;
    // A line that is not JSON, holding raw ESC and BEL (the JSON parser's message quotes it).
    writeFileSync(file, '\u001b]0;pwned\u0007\u001b[2J not json\n');
    const err: string[] = [];
    const code = await runCli(['sl_basic', `dataset=${file}`], [slBasic], { out: () => {}, err: (t) => err.push(t) });
    expect(code).not.toBe(0);
    const text = err.join('\n');
    expect(text).toContain('bad.jsonl:1');
    expect([...text].filter((c) => c !== '\n' && (c < ' ' || c === '\u007f'))).toEqual([]);
    expect(text).toContain('\\x1b]0;pwned\\x07');
    expect(describeFailure(new DataError('x\u001b[31my\u0007'))?.line).toBe('cookbook: x\\x1b[31my\\x07');
  });

  it('a bug keeps its stack trace (no description)', () => {
    expect(describeFailure(new TypeError('x is undefined'))).toBeUndefined();
  });
});
