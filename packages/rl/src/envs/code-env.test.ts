import { DataError } from '@cookbook/core';
import { getRenderer } from '@cookbook/renderers';
import { BubblewrapSandbox, gradeWithPool, isolatedPythonAvailable, SandboxPool } from '@cookbook/sandbox';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import {
  buildCodeDatasets,
  CodeProblemEnv,
  deepcoderTask,
  generateCodeTasks,
  liveCodeBenchPrompt,
  loadDeepcoderTasks,
} from './code-env.js';

const run = isolatedPythonAvailable() || process.env.CI === 'true';

describe('code RL tasks and prompt', () => {
  it("builds upstream's LiveCodeBench prompt, with and without starter code", () => {
    const plain = liveCodeBenchPrompt('Add two numbers.');
    expect(plain.startsWith('You are an expert Python programmer.')).toBe(true);
    expect(plain).toContain('Add two numbers.### Format: Read the inputs from stdin');
    expect(plain).toContain(
      '```python\n# YOUR CODE HERE\n```\n\n### Answer: (use the provided format with backticks)\n\n',
    );
    const starter = liveCodeBenchPrompt('Q', 'class Solution:\n    def f(self): ...');
    expect(starter).toContain('### Format: You will use the following starter code');
    expect(starter).toContain('```python\nclass Solution:\n    def f(self): ...\n```\n\n');
  });

  it('reads DeepCoder rows: LCB test lists, functional metadata, TACO form (a list output is its first item)', () => {
    const lcb = deepcoderTask({
      question: 'Q',
      tests: JSON.stringify([{ input: '1\n', output: '2\n', testtype: 'stdin_stdout', metadata: {} }]),
    });
    expect(lcb?.tests).toEqual({ inputs: ['1\n'], outputs: ['2\n'] });
    const fn = deepcoderTask({
      problem: 'Q',
      starter_code: 'class Solution: ...',
      tests: [{ input: '[1]', output: '1', testtype: 'functional', metadata: { func_name: 'f' } }],
    });
    expect(fn).toMatchObject({ tests: { fnName: 'f' }, starterCode: 'class Solution: ...' });
    const taco = deepcoderTask({ prompt: 'Q', tests: { inputs: ['1'], outputs: [['2', '3']], fn_name: 'g' } });
    expect(taco?.tests).toEqual({ inputs: ['1'], outputs: ['2'], fnName: 'g' });
    expect(deepcoderTask({ question: '', tests: [] })).toBeUndefined();
    expect(() => deepcoderTask({ question: 'Q', tests: '[{' }, { file: 'deepcoder', line: 4 })).toThrow(
      /deepcoder:4, field "tests": the tests are not valid JSON/,
    );
  });

  it('online without network fails with a message naming the offline default', async () => {
    const offline = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(loadDeepcoderTasks('train', 10, offline as unknown as typeof fetch)).rejects.toThrow(DataError);
    await expect(loadDeepcoderTasks('train', 10, offline as unknown as typeof fetch)).rejects.toThrow(
      /DeepCoder-Preview-Dataset \(primeintellect, train\).*online=false \(the default\)/s,
    );
  });

  it('generates the same tasks from the same seed', () => {
    expect(generateCodeTasks(5, 3)).toEqual(generateCodeTasks(5, 3));
    expect(generateCodeTasks(5, 3)).not.toEqual(generateCodeTasks(5, 4));
  });
});

describe.runIf(run)('code RL env graded in the sandbox [bubblewrap]', () => {
  const tok = getTokenizer('local/qwen3-tiny');
  const renderer = getRenderer('qwen3_disable_thinking', tok);
  const imEnd = tok.convertTokenToId('<|im_end|>')!;
  const pool = new SandboxPool({ create: () => new BubblewrapSandbox(), size: 2 });
  const grade = (code: string, tests: Parameters<typeof gradeWithPool>[2]) => gradeWithPool(pool, code, tests);

  it("every generated task's reference program passes its tests; a wrong one does not", async () => {
    const tasks = generateCodeTasks(6, 0);
    const grades = await Promise.all(tasks.map((t) => grade(t.reference!, t.tests)));
    expect(grades.map((g) => g.verdict)).toEqual(tasks.map(() => 'Accepted'));
    expect((await grade('print(0)', tasks[0]!.tests)).passed).toBe(false);
  });

  it('rewards 1 for passing code, 0 for failing code, -0.1 without a code block', async () => {
    const task = generateCodeTasks(1, 1)[0]!;
    const step = async (text: string) => {
      const env = new CodeProblemEnv(task, renderer, grade);
      await env.initialObservation();
      const tokens = [...tok.encode(text), imEnd];
      return (await env.step(tokens)).reward;
    };
    expect(await step(`\`\`\`python\n${task.reference}\n\`\`\``)).toBe(1);
    expect(await step('```python\nprint(input())\n```')).toBe(0);
    expect(await step(task.reference!)).toBeCloseTo(-0.1, 12);
  });

  it('builds offline datasets of the asked size', async () => {
    const { train } = await buildCodeDatasets({ renderer, grade, batchSize: 2, groupSize: 3, numBatches: 4, seed: 0 });
    expect(train.length).toBe(4);
    expect((await train.getBatch(0)[0]!.makeEnvs()).length).toBe(3);
  });
});
