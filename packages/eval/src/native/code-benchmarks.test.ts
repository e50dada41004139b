/**
 * The code benchmarks against upstream (`__fixtures__/upstream-code-verdicts.json`, from
 * `scripts/upstream-code-verdicts.py`: upstream's MBPP and LiveCodeBench builders on the shipped samples, upstream's
 * MBPP env on a set of replies, upstream's `extract_python_code`), and their grading in the local sandbox: correct,
 * wrong, crashing, timing-out and network-attempting programs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { Message } from '@cookbook/core';
import { BubblewrapSandbox, type CodeTests, isolatedPythonAvailable, SandboxPool } from '@cookbook/sandbox';
import { describe, expect, it } from 'vitest';
import type { Benchmark } from '../benchmark.js';
import {
  extractPythonCode,
  gradeLiveCodeBenchReply,
  gradeMbppProgram,
  liveCodeBenchPrompt,
  livecodebench,
  mbppProgram,
} from './code-benchmarks.js';
import { decodePrivateTests, unpickleString } from './lcb-tests.js';
import { loadNativeBenchmark, readNativeSample } from './registry.js';

interface Fixture {
  upstream_commit: string;
  mbpp: {
    examples: { id: string; messages: Message[] }[];
    verdicts: { name: string; example: string; response: string; correct: boolean }[];
  };
  livecodebench: { examples: { id: string; prompt: string; difficulty: string }[] };
  extract_python_code: { response: string; code: string }[];
}
const upstream = (
  (await import('./__fixtures__/upstream-code-verdicts.json', { with: { type: 'json' } })) as { default: Fixture }
).default;

const run = isolatedPythonAvailable() || process.env.CI === 'true';

/** A pool that refuses to make sandboxes: for loading samples where no code runs. */
const noSandbox = new SandboxPool({
  create: () => {
    throw new Error('no code runs in this test');
  },
  size: 1,
});

/** The problem statement upstream put at the head of its own LiveCodeBench prompt. */
function upstreamQuestion(i: number): string {
  return upstream.livecodebench.examples[i]!.prompt.split('\n\nWrite a complete Python solution.')[0]!.split(
    '\n\nStarter code:',
  )[0]!;
}

async function grade(b: Benchmark, id: string, response: string) {
  const example = b.examples.find((e) => e.id === id)!;
  return b.grader({ response, example, target: example, turn: 0, prompt: example.messages });
}

describe('code benchmarks build upstream examples', () => {
  it("mbpp: upstream's ids and prompts for every sample row", async () => {
    const b = await loadNativeBenchmark('mbpp:sample', { sandbox: noSandbox });
    expect(b.examples.map((e) => ({ id: e.id, messages: e.messages }))).toEqual(upstream.mbpp.examples);
  });

  it("livecodebench: upstream's ids and difficulties; LiveCodeBench's prompt with or without starter code", async () => {
    const b = await loadNativeBenchmark('livecodebench:sample', { sandbox: noSandbox });
    expect(b.examples.map((e) => [e.id, e.metadata?.difficulty])).toEqual(
      upstream.livecodebench.examples.map((e) => [e.id, e.difficulty]),
    );
    const [stdin, , functional] = b.examples;
    const text = (i: number) => b.examples[i]!.messages[0]!.content as string;
    expect(text(0)).toMatch(/^You are an expert Python programmer\. .*\n\nYou are given N integers\./);
    expect(text(0)).toContain('### Format: Read the inputs from stdin solve the problem');
    expect(text(0)).toContain(
      '```python\n# YOUR CODE HERE\n```\n\n### Answer: (use the provided format with backticks)\n\n',
    );
    expect(text(0)).toBe(liveCodeBenchPrompt(upstreamQuestion(0), ''));
    expect(text(2)).toContain(
      '### Format: You will use the following starter code to write the solution to the problem and enclose your code within delimiters.\n```python\nclass Solution:\n    def longestRun(',
    );
    // Public and private tests (the private ones decoded from base64(zlib(pickle(json)))).
    expect(stdin!.metadata?.tests).toEqual({
      inputs: ['3\n4 -1 10\n', '1\n7\n', '5\n1 2 3 4 5\n', '2\n-5 -6\n'],
      outputs: ['13\n', '7\n', '15\n', '-11\n'],
    });
    const functionalTests = functional!.metadata!.tests as CodeTests;
    expect(functionalTests.fnName).toBe('longestRun');
    expect(functionalTests.inputs).toHaveLength(3);
  });

  it("extracts code as upstream's extract_python_code does", () => {
    for (const c of upstream.extract_python_code) expect(extractPythonCode(c.response)).toBe(c.code);
  });

  it('decodes only a pickled str; a bad test cell is an error naming file, line and field', () => {
    const pickled = Buffer.from([
      0x80, 0x04, 0x95, 9, 0, 0, 0, 0, 0, 0, 0, 0x8c, 4, 0x5b, 0x31, 0x2c, 0x5d, 0x94, 0x2e,
    ]);
    expect(unpickleString(pickled)).toBe('[1,]');
    // A pickle that would call something (GLOBAL opcode) is refused, not run.
    expect(unpickleString(Buffer.from('cos\nsystem\n(S"true"\ntR.'))).toBeUndefined();
    expect(() => decodePrivateTests(deflateSync(Buffer.from('cos\nsystem\n.')).toString('base64'))).toThrow(
      /field "private_test_cases": expected JSON, or base64 of zlib-compressed pickled JSON/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'code-bench-'));
    const path = join(dir, 'livecodebench.jsonl');
    writeFileSync(path, '{"question_content": "q", "public_test_cases": "[{\\"input\\": 1}]"}\n');
    expect(() => readNativeSample(livecodebench, path, null, noSandbox)).toThrow(
      /livecodebench\.jsonl:1, field "public_test_cases": expected test case 0 to be \{input: string/,
    );
    writeFileSync(path, '{"question_content": "q", "public_test_cases": "[]", "private_test_cases": "@@@"}\n');
    expect(() => readNativeSample(livecodebench, path, null, noSandbox)).toThrow(
      /livecodebench\.jsonl:1, field "private_test_cases"/,
    );
    const functionalWithoutName = JSON.stringify([{ input: '1', output: '1', testtype: 'functional' }]);
    writeFileSync(path, `${JSON.stringify({ question_content: 'q', public_test_cases: functionalWithoutName })}\n`);
    expect(() => readNativeSample(livecodebench, path, null, noSandbox)).toThrow(
      /field "metadata": expected a func_name for functional tests/,
    );
  });

  it('mbpp puts the test imports before the asserts', () => {
    expect(mbppProgram('def f(): pass', ['import math'], ['assert f() is None'])).toBe(
      'def f(): pass\n\nimport math\nassert f() is None',
    );
  });
});

describe.runIf(run)('code benchmarks graded in the sandbox [bubblewrap]', () => {
  const pool = new SandboxPool({ create: () => new BubblewrapSandbox(), size: 2 });

  it("mbpp: upstream's verdict on every reply, except the test imports it leaves out", async () => {
    const b = await loadNativeBenchmark('mbpp:sample', { sandbox: pool });
    const got = await Promise.all(
      upstream.mbpp.verdicts.map(async (v) => ({
        name: v.name,
        correct: (await grade(b, v.example, v.response)).correct,
      })),
    );
    const want = upstream.mbpp.verdicts.map((v) => ({
      name: v.name,
      // Deliberate difference: MBPP's test_imports (here `import math`) run before the asserts.
      correct: v.name === 'asserts need an import the solution lacks' ? true : v.correct,
    }));
    expect(got).toEqual(want);
    expect(want.filter((w) => w.correct).length).toBeGreaterThan(3);
    expect(want.filter((w) => !w.correct).length).toBeGreaterThan(2);
    const crash = await grade(b, 'mbpp_9001', upstream.mbpp.verdicts.find((v) => v.name === 'crash')!.response);
    expect(crash).toMatchObject({ correct: false, score: 0, extracted: 'ValueError: no' });
  });

  it('livecodebench: stdin, floats and functional tests pass; wrong and crashing programs fail', async () => {
    const b = await loadNativeBenchmark('livecodebench:sample', { sandbox: pool });
    const [sum, mean, run] = b.examples.map((e) => e.id) as [string, string, string];
    const fence = (code: string) => `Solution:\n\`\`\`python\n${code}\n\`\`\``;
    const verdicts = await Promise.all([
      grade(b, sum, fence('input()\nprint(sum(map(int, input().split())))')),
      grade(b, mean, fence('xs = list(map(int, input().split()))\nprint(sum(xs) / len(xs))')),
      grade(
        b,
        run,
        fence(
          'class Solution:\n    def longestRun(self, nums: List[int]) -> int:\n        best = cur = 1\n' +
            '        for a, b in zip(nums, nums[1:]):\n            cur = cur + 1 if a == b else 1\n' +
            '            best = max(best, cur)\n        return best',
        ),
      ),
      grade(b, sum, fence('n = int(input())\nxs = map(int, input().split())\nprint(sum(xs) if n < 4 else 0)')),
      grade(b, sum, fence('raise SystemExit(3)')),
      grade(b, run, fence('class Solution:\n    def longestRun(self, nums):\n        return nums[10]')),
    ]);
    expect(verdicts.map((v) => [v.correct, v.score])).toEqual([
      [true, 1],
      [true, 1],
      [true, 1],
      [false, 0],
      [false, 0],
      [false, 0],
    ]);
    // The public tests pass; the first private test (five numbers) catches it.
    expect(verdicts[3]!.extracted).toBe('Wrong Answer (test 2)');
    const metrics = b.aggregate!(b.examples.map((example, i) => ({ example, correct: i !== 1, score: 0 })));
    expect(metrics).toEqual({
      'livecodebench/pass_at_1': 2 / 3,
      'livecodebench/easy/pass_at_1': 1,
      'livecodebench/medium/pass_at_1': 0,
    });
  });

  it('a program that sleeps for ever is stopped and fails', async () => {
    const tests = { inputs: ['1\n'], outputs: ['1\n'] };
    const lcb = await gradeLiveCodeBenchReply(pool, '```python\nimport time\ntime.sleep(600)\n```', tests, 1);
    expect(lcb).toMatchObject({ correct: false, extracted: 'Time Limit Exceeded (test 0)' });
    const m = await gradeMbppProgram(pool, mbppProgram('import time\ntime.sleep(600)', [], ['assert True']), 1);
    expect(m).toMatchObject({ correct: false, extracted: 'Time Limit Exceeded' });
  });

  it('a program that reaches for the network gets nothing and fails', async () => {
    let connections = 0;
    const server = createServer((s) => {
      connections++;
      s.end('ok\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      // Each passes only if the connection succeeds.
      const connect = `import socket\nsocket.create_connection(("127.0.0.1", ${port}), timeout=2).recv(3)\n`;
      const lcb = await gradeLiveCodeBenchReply(pool, `\`\`\`python\n${connect}print(input())\n\`\`\``, {
        inputs: ['7\n'],
        outputs: ['7\n'],
      });
      const m = await gradeMbppProgram(pool, mbppProgram(connect, [], ['assert True']));
      const dns = await gradeMbppProgram(
        pool,
        mbppProgram('import socket\nsocket.getaddrinfo("example.com", 80)', [], ['assert True']),
      );
      expect([lcb.correct, m.correct, dns.correct]).toEqual([false, false, false]);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });
});
