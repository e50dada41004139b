import { spawnSync } from 'node:child_process';
import { ConfigError } from '@cookbook/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { PickEnv } from '../__fixtures__/pick-env.js';
import { MathEnv } from '../dataset/dataset-env.js';
import { getWrapperFns } from './factory.js';
import { PythonCodeTool, ToolEnvWrapper } from './python-tool.js';

// The execution tests need python3 (the wrapper's runtime dependency); the missing-interpreter test runs anyway.
// Without python3 they skip locally (their names say "[python3]"); under CI=true they run, and fail: CI has python3.
const hasPython = spawnSync('python3', ['--version']).status === 0;
const runPython = hasPython || process.env.CI === 'true';

describe('PythonCodeTool without python', () => {
  it('says clearly when the interpreter is missing', () => {
    expect(() => new PythonCodeTool({ python: 'python3-not-installed-here' })).toThrow(ConfigError);
    expect(() => new PythonCodeTool({ python: 'python3-not-installed-here' })).toThrow(/not installed or not on PATH/);
  });
});

describe.runIf(runPython)('PythonCodeTool [python3]', () => {
  // Made in beforeAll: a skipped suite's body still runs (to list its tests), and the constructor needs python3.
  let tool: PythonCodeTool;
  beforeAll(() => {
    tool = new PythonCodeTool({ timeoutSeconds: 3, memoryMb: 256 });
  });

  it('parses the first block to end and cuts the action after it', () => {
    const call = tool.parse('Let me compute.\n<python>print(6*7)</python>\nthen ```python\nprint(1)\n``` done');
    expect(call).toEqual({ code: 'print(6*7)', parsedAction: 'Let me compute.\n<python>print(6*7)</python>' });
    expect(tool.parse('```python\nx=1\n```')?.code).toBe('x=1\n');
    expect(tool.parse('no code \\boxed{3}')).toBeUndefined();
  });

  it('runs code and reports stdout, then stderr on failure', async () => {
    const ok = await tool.execute({ code: 'print(6*7)', parsedAction: '' });
    expect(ok).toMatchObject({ observation: 'Code execution result: 42\n\n', error: false });
    const bad = await tool.execute({ code: 'print("a")\n1/0', parsedAction: '' });
    expect(bad.error).toBe(true);
    expect(bad.observation).toMatch(/^Code execution result: a\n\nTraceback[\s\S]*ZeroDivisionError/);
  });

  it('enforces the time limit, the memory limit and blocks network connections', async () => {
    const slow = await new PythonCodeTool({ timeoutSeconds: 1 }).run('while True: pass');
    expect(slow.error).toBe(true);
    expect(slow.stderr).toMatch(/exceeded 1 s/);
    const big = await tool.run('x = bytearray(600 * 1024 * 1024)\nprint("allocated")');
    expect(big.error).toBe(true);
    expect(big.stderr).toMatch(/MemoryError/);
    const net = await tool.run('import socket\nsocket.create_connection(("127.0.0.1", 9))');
    expect(net.error).toBe(true);
    expect(net.stderr).toMatch(/network access is disabled/);
  }, 30_000);

  it('keeps only the last stderr line when asked', async () => {
    const t = new PythonCodeTool({ lastLineError: true });
    const r = await t.execute({ code: '1/0', parsedAction: '' });
    expect(r.observation).toBe('Code execution result: ZeroDivisionError: division by zero\n');
  });
});

describe.runIf(runPython)('ToolEnvWrapper (python_tool) [python3]', () => {
  it('pays tool and success rewards, caps uses, then passes answers to the env', async () => {
    const [wrap] = getWrapperFns('python_tool');
    const inner = new MathEnv({ dataset: [{ question: 'What is 6*7?', answers: ['42'] }] });
    const env = wrap!(inner);
    const r0 = await env.reset();
    expect(r0.observation).toMatch(/^What is 6\*7\?\nYou can run Python code/);
    expect(r0.info).toMatchObject({ tool_use_counter: 0, use_tool: false });
    const t1 = await env.step('<python>print(6*7)</python>');
    expect(t1).toMatchObject({ reward: 0.3, terminated: false, truncated: false });
    expect(t1.info).toMatchObject({
      use_tool: true,
      tool_type: 'python',
      tool_use_counter: 1,
      tool_success_counter: 1,
    });
    const t2 = await env.step('<python>1/0</python>');
    expect(t2.reward).toBeCloseTo(0.05, 12);
    const final = await env.step('The answer is \\boxed{42}');
    expect(final).toMatchObject({ reward: 1, terminated: true });
    expect(final.info).toMatchObject({ use_tool: false, tool_use_counter: 2 });
  });

  it('after max uses appends the notice and sends further code to the env', async () => {
    const tool = new PythonCodeTool();
    const env = new ToolEnvWrapper(new PickEnv(0, 5), { tools: [tool], maxToolUses: 1 });
    await env.reset(0);
    const t1 = await env.step('<python>print(1)</python>');
    expect(t1.observation).toBe(
      'Code execution result: 1\n\n\n\nReached the maximum number of tool use. Please output final answer directly.',
    );
    const t2 = await env.step('<python>print(2)</python>');
    expect(t2.info.use_tool).toBe(false);
    expect(t2.reward).toBe(-0.1);
  });
});
