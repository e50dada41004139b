import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { make } from '../core/registry.js';
import {
  CodeEnv,
  type CodeItem,
  extractCode,
  hasForbiddenCode,
  readCodeDataset,
  runPythonProgram,
} from './code-env.js';

const SUM: CodeItem = {
  question: 'Read two integers on one line and print their sum.',
  tests: { inputs: ['1 2\n', '10 20\n', '-5 5\n'], outputs: ['3', '30\n', '0'] },
};
const answer = (code: string) => `Here it is:\n\`\`\`python\n${code}\n\`\`\``;

const dir = mkdtempSync(join(tmpdir(), 'gem-code-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('CodeEnv (GEM code_env: tests as reward)', () => {
  it('takes the last fenced block, as GEM extract_code_from_model', () => {
    expect(extractCode('```\na\n``` and ```py\nb = 1\n```')).toBe('b = 1');
    expect(extractCode('```python no newline```')).toBeUndefined();
    expect(hasForbiddenCode('import subprocess')).toBe(true);
    expect(hasForbiddenCode('import math')).toBe(false);
  });

  it('pays 1 when every test passes, 0 for a wrong answer or a crash, -0.1 without code', async () => {
    const env = new CodeEnv({ dataset: [SUM] });
    await env.reset(0);
    expect((await env.step(answer('a, b = map(int, input().split())\nprint(a + b)'))).reward).toBe(1);
    await env.reset(0);
    expect((await env.step(answer('a, b = map(int, input().split())\nprint(a - b)'))).reward).toBe(0);
    await env.reset(0);
    expect((await env.step(answer('raise SystemExit(3)'))).reward).toBe(0);
    await env.reset(0);
    const none = await env.step('print(3)');
    expect([none.reward, none.terminated, none.truncated]).toEqual([-0.1, true, true]);
    await env.reset(0);
    expect((await env.step(answer('import threading\nprint(3)'))).reward).toBe(0);
  });

  it('limits time, memory and the network', async () => {
    const env = new CodeEnv({ dataset: [SUM], timeoutSeconds: 1, memoryMb: 256 });
    await env.reset(0);
    expect((await env.step(answer('while True:\n    pass'))).reward).toBe(0);
    await env.reset(0);
    expect((await env.step(answer('x = bytearray(1 << 30)\nprint(3)'))).reward).toBe(0);
    const net = await runPythonProgram('import urllib.request\nurllib.request.urlopen("http://127.0.0.1:9")', '', {
      timeoutMs: 10_000,
      memoryBytes: 256 * 1024 * 1024,
      maxOutputChars: 10_000,
      python: 'python3',
    });
    expect(net.ok).toBe(false);
    expect(net.stderr).toContain('network access is disabled');
  }, 30_000);

  it('runs the 12 tests with the longest inputs', () => {
    const inputs = Array.from({ length: 15 }, (_, i) => 'x'.repeat(i));
    const env = new CodeEnv({ dataset: [{ question: 'q', tests: { inputs, outputs: inputs } }] });
    expect(env.selectedTests(env.dataset[0]!).map((t) => t.input.length)).toEqual([
      14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3,
    ]);
  });

  it('reads GEM-shaped JSONL (tests as an object or a JSON string) and registers code:jsonl', async () => {
    const path = join(dir, 'code.jsonl');
    writeFileSync(
      path,
      `${JSON.stringify({ problem: 'p1', tests: SUM.tests })}\n${JSON.stringify({ problem: 'p2', tests: JSON.stringify({ inputs: [['1', '2']], outputs: ['3'] }) })}\n`,
    );
    const items = readCodeDataset(path);
    expect(items[1]!.tests.inputs).toEqual(['1\n2']);
    const env = make('code:jsonl', { path });
    expect((await env.reset(0)).observation).toMatch(/^p[12]$/);
    writeFileSync(path, '{"problem": "p", "tests": {"inputs": ["1"], "outputs": []}}\n');
    expect(() => readCodeDataset(path)).toThrow(/code\.jsonl:1, field "tests"/);
  });
});
