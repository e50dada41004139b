/**
 * Our harness against upstream's: every case in the fixture carries the verdict upstream's LiveCodeBench `run_test`
 * harness gave it (`scripts/make-grading-fixture.py`); grading the same program on the same tests here must agree.
 */
import { readFileSync } from 'node:fs';
import { DataError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { BubblewrapSandbox, isolatedPythonAvailable } from './bubblewrap.js';
import { extractCode, gradeCode, gradeWithPool, parseCodeTests, totalTimeoutSeconds } from './grading.js';
import { SandboxPool } from './pool.js';

interface Case {
  name: string;
  code: string;
  tests: { inputs: string[]; outputs: string[]; fn_name?: string };
  timeout: number;
  passed: boolean;
}
const CASES = JSON.parse(readFileSync(new URL('./__fixtures__/grading-cases.json', import.meta.url), 'utf8')) as Case[];

const run = isolatedPythonAvailable() || process.env.CI === 'true';

describe('grading inputs', () => {
  it("takes the last fenced block (upstream's extract_code_from_model); none is undefined", () => {
    expect(extractCode('a\n```python\nprint(1)\n```\nb\n```\nprint(2)  \n```')).toBe('print(2)');
    expect(extractCode('no code here')).toBeUndefined();
    expect(extractCode('```python print(1)```')).toBeUndefined();
  });

  it('refuses tests that are not valid JSON or not the right shape, naming where', () => {
    expect(() => parseCodeTests('{"inputs": [', { file: 'tasks.jsonl', line: 3, field: 'tests' })).toThrow(DataError);
    expect(() => parseCodeTests('{"inputs": [', { file: 'tasks.jsonl', line: 3, field: 'tests' })).toThrow(
      /tasks\.jsonl:3, field "tests": the tests are not valid JSON/,
    );
    expect(() => parseCodeTests({ inputs: ['1'], outputs: [] })).toThrow(/same non-zero length \(got 1 and 0\)/);
    expect(() => parseCodeTests({ inputs: [1], outputs: ['1'] })).toThrow(/must be a string/);
    expect(() => parseCodeTests({ inputs: ['1'], outputs: ['1'], fn_name: 'a b' })).toThrow(
      /fn_name must be a Python identifier/,
    );
    expect(parseCodeTests('{"inputs": [["1", "2"]], "outputs": ["3"], "fn_name": "f"}')).toEqual({
      inputs: ['1\n2'],
      outputs: ['3'],
      fnName: 'f',
    });
  });

  it("gives a grading upstream's total limit: (per-test + 1) x tests + 5 s", () => {
    expect(totalTimeoutSeconds(10)).toBe(75);
    expect(totalTimeoutSeconds(3, 1)).toBe(11);
  });
});

describe.runIf(run)("grading in the sandbox agrees with upstream's harness [bubblewrap]", () => {
  it(`gives upstream's verdict on all ${CASES.length} fixture cases`, async () => {
    const pool = new SandboxPool({ create: () => new BubblewrapSandbox(), size: 2 });
    const got = await Promise.all(
      CASES.map((c) =>
        pool.run(async (sb) => {
          const g = await gradeCode(
            sb,
            c.code,
            {
              inputs: c.tests.inputs,
              outputs: c.tests.outputs,
              ...(c.tests.fn_name === undefined ? {} : { fnName: c.tests.fn_name }),
            },
            { timeoutSeconds: c.timeout },
          );
          return { name: c.name, passed: g.passed, verdict: g.verdict };
        }),
      ),
    );
    const mismatches = got.filter((g, i) => g.passed !== CASES[i]!.passed);
    expect(mismatches).toEqual([]);
    expect(got.filter((g) => g.passed).length).toBeGreaterThan(10);
    expect(got.filter((g) => !g.passed).length).toBeGreaterThan(10);
    expect(got.find((g) => g.name === 'timeout')?.verdict).toBe('Time Limit Exceeded');
    expect(got.find((g) => g.name === 'stdin wrong answer')?.verdict).toBe('Wrong Answer');
  });

  it('a hostile submission is a failed grade and the next one grades normally', async () => {
    const pool = new SandboxPool({ create: () => new BubblewrapSandbox(), size: 1 });
    const tests = { inputs: ['1 2'], outputs: ['3'] };
    const bomb = await gradeWithPool(pool, 'import os\nwhile True:\n    os.fork()', tests, { timeoutSeconds: 1 });
    expect(bomb.passed).toBe(false);
    const net = await gradeWithPool(
      pool,
      'import socket\nsocket.create_connection(("127.0.0.1", 80), timeout=1)\nprint(3)',
      tests,
    );
    expect(net.passed).toBe(false);
    const ok = await gradeWithPool(pool, 'a, b = map(int, input().split())\nprint(a + b)', tests);
    expect(ok).toMatchObject({ passed: true, verdict: 'Accepted' });
  });
});
