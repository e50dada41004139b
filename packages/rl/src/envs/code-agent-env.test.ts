import { type AddressInfo, createServer } from 'node:net';
import type { Message } from '@cookbook/core';
import { getRenderer } from '@cookbook/renderers';
import {
  BubblewrapSandbox,
  type CodeTests,
  gradeWithPool,
  isolatedPythonAvailable,
  SandboxPool,
} from '@cookbook/sandbox';
import { getTokenizer } from '@cookbook/tokenizers';
import { executeToolCall, toolMap } from '@cookbook/tools';
import { describe, expect, it } from 'vitest';
import { CodeAgentEnv, type CodeAgentEnvOptions, checkSolutionTool } from './code-agent-env.js';
import { buildCodeDatasets, type CodeGrader, type CodeTask } from './code-env.js';

const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
const task: CodeTask = {
  question: 'Read an integer and print it + 2.',
  tests: { inputs: ['1\n', '5\n'], outputs: ['3\n', '7\n'] },
  reference: 'print(int(input()) + 2)',
};
const RIGHT = 'print(int(input()) + 2)';
const WRONG = 'print(int(input()) - 2)';

/** A grader that passes exactly the reference program and counts its calls (no sandbox: the env's rules alone). */
function scriptedGrader(): CodeGrader & { calls: string[] } {
  const calls: string[] = [];
  const grade = async (code: string, _tests: CodeTests) => {
    calls.push(code);
    const passed = code === RIGHT;
    return { passed, verdict: passed ? 'Accepted' : 'Wrong Answer', ...(passed ? {} : { failedTest: 0 }) };
  };
  return Object.assign(grade, { calls });
}

function sampled(history: readonly Message[], reply: Message): number[] {
  const prompt = renderer.buildGenerationPrompt(history).toInts();
  const full = renderer.buildSupervisedExample([...history, reply]).modelInput.toInts();
  expect(full.slice(0, prompt.length)).toEqual(prompt);
  return full.slice(prompt.length);
}
const check = (code: string): Message => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ type: 'function', function: { name: 'check_solution', arguments: JSON.stringify({ code }) } }],
});
const answer = (code: string): Message => ({
  role: 'assistant',
  content: `Here it is.\n\`\`\`python\n${code}\n\`\`\``,
});

function agent(grade: CodeGrader, options: Partial<CodeAgentEnvOptions> = {}) {
  const env = new CodeAgentEnv({ task, renderer, grade, prompt: task.question, maxGenerationTokens: 64, ...options });
  return {
    env,
    start: () => env.initialObservation(),
    /** Step with the renderer's tokens of `reply` after the conversation so far. */
    say: (reply: Message) => env.step(sampled(env.conversation, reply)),
    get conversation() {
      return env.conversation;
    },
  };
}

describe('code RL agent variant (check_solution)', () => {
  it('a reply without tool calls ends the episode: 0.1 · (has_code − 1) + correct from its last fenced block', async () => {
    const g = scriptedGrader();
    const a = agent(g);
    await a.start();
    const s = await a.say(answer(RIGHT));
    expect([s.episodeDone, s.reward]).toEqual([true, 1]);
    expect(s.metrics).toMatchObject({ format: 1, correct: 1, 'end/final_answer': 1, 'episode/turns': 1 });

    const b = agent(g);
    await b.start();
    const w = await b.say({
      role: 'assistant',
      content: `\`\`\`python\n${RIGHT}\n\`\`\`\nor\n\`\`\`python\n${WRONG}\n\`\`\``,
    });
    expect(w.reward).toBe(0); // the last block is graded
    const c = agent(g);
    await c.start();
    const none = await c.say({ role: 'assistant', content: RIGHT });
    expect(none.reward).toBeCloseTo(-0.1, 12);
    expect(none.metrics).toMatchObject({ format: 0, correct: 0 });
  });

  it('the tool result comes back as JSON {passed, details}; the second reply is the last and is graded', async () => {
    const g = scriptedGrader();
    const a = agent(g);
    await a.start();
    const s1 = await a.say(check(WRONG));
    expect([s1.episodeDone, s1.reward]).toEqual([false, 0]);
    const tool = a.conversation.at(-1)!;
    expect(tool.role).toBe('tool');
    expect(JSON.parse(String(tool.content))).toEqual({
      passed: false,
      details: { verdict: 'Wrong Answer', failed_test: 0 },
    });
    const s2 = await a.say(answer(RIGHT));
    expect([s2.episodeDone, s2.reward]).toEqual([true, 1]);
    expect(s2.metrics).toMatchObject({ 'episode/turns': 2, 'episode/tool_calls': 1, 'tool/check_solution_passed': 0 });
    expect(g.calls).toEqual([WRONG, RIGHT]);
  });

  it('at the turn limit a tool-calling reply still runs its call, then the episode is graded (no code: −0.1)', async () => {
    const g = scriptedGrader();
    const a = agent(g);
    await a.start();
    await a.say(check(WRONG));
    const s2 = await a.say(check(RIGHT));
    expect(s2.episodeDone).toBe(true);
    expect(s2.reward).toBeCloseTo(-0.1, 12); // the code was in the tool call, not in a fenced block
    expect(s2.metrics).toMatchObject({ 'end/max_turns': 1, 'episode/turns': 2, 'episode/tool_calls': 2 });
    expect(g.calls).toEqual([WRONG, RIGHT]); // both calls ran; the final grade found no code to run

    const one = agent(g, { maxTurns: 1 });
    await one.start();
    const s = await one.say(check(RIGHT));
    expect([s.episodeDone, s.metrics['end/max_turns']]).toEqual([true, 1]);
  });

  it('the token cap: when the next prompt plus max_tokens would pass it, −0.1 and no grade', async () => {
    const g = scriptedGrader();
    const probe = agent(g);
    await probe.start();
    await probe.say(check(WRONG));
    const nextPrompt = renderer.buildGenerationPrompt(probe.conversation).length;
    // Exactly at the cap the episode goes on; one token less and it overflows.
    const fits = agent(g, { maxTrajectoryTokens: nextPrompt + 64 });
    await fits.start();
    expect((await fits.say(check(WRONG))).episodeDone).toBe(false);
    const g2 = scriptedGrader();
    const over = agent(g2, { maxTrajectoryTokens: nextPrompt + 63 });
    await over.start();
    const s = await over.say(check(WRONG));
    expect([s.episodeDone, s.reward]).toEqual([true, -0.1]);
    expect(s.metrics).toMatchObject({ context_overflow: 1, 'end/max_tokens': 1 });
    expect(g2.calls).toEqual([WRONG]); // the tool ran; the episode was not graded
  });

  it('a first prompt over the cap earns −0.1 and its reply is left out of the loss', async () => {
    const g = scriptedGrader();
    const a = agent(g, { maxTrajectoryTokens: 70 });
    await a.start();
    const s = await a.say(answer(RIGHT));
    expect([s.episodeDone, s.reward]).toEqual([true, -0.1]);
    expect(s.metrics).toMatchObject({ context_overflow: 1, parse_error_masked: 1 });
    expect(g.calls).toEqual([]);
  });

  it('a reply cut at max_tokens ends the episode at −0.1 without a grade', async () => {
    const g = scriptedGrader();
    const a = agent(g);
    await a.start();
    const cut = renderer.tokenizer.encode(`\`\`\`python\n${RIGHT}`);
    const s = await a.env.step(cut, { stopReason: 'length' });
    expect([s.episodeDone, s.reward]).toEqual([true, -0.1]);
    expect(g.calls).toEqual([]);
  });

  it('bad tool calls: an unknown tool or arguments without code are errors the model reads; an unparsable call ends at −0.1', async () => {
    const g = scriptedGrader();
    const a = agent(g);
    await a.start();
    const s = await a.say({
      role: 'assistant',
      content: '',
      tool_calls: [{ type: 'function', function: { name: 'run_tests', arguments: '{"code": "print(1)"}' } }],
    });
    expect(s.episodeDone).toBe(false);
    expect(String(a.conversation.at(-1)!.content)).toMatch(
      /unknown tool "run_tests"\. Available tools: check_solution/,
    );
    const b = agent(g);
    await b.start();
    const s2 = await b.say({
      role: 'assistant',
      content: '',
      tool_calls: [{ type: 'function', function: { name: 'check_solution', arguments: '{"program": "print(1)"}' } }],
    });
    expect(s2.episodeDone).toBe(false);
    expect(String(b.conversation.at(-1)!.content)).toMatch(/invalid arguments for check_solution: code:/);
    expect(g.calls).toEqual([]);

    const c = agent(g);
    await c.start();
    const broken = renderer.tokenizer.encode(
      '<tool_call>\n{"name": "check_solution", "arguments": {"code": \n</tool_call>',
    );
    const s3 = await c.env.step([...broken, renderer.tokenizer.convertTokenToId('<|im_end|>')!]);
    expect([s3.episodeDone, s3.reward]).toEqual([true, -0.1]);
    expect(s3.metrics).toMatchObject({ parse_error: 1, 'end/parse_error': 1 });
    expect(g.calls).toEqual([]);
  });

  it('a grader that throws becomes {"error", "passed": false}', async () => {
    const tool = checkSolutionTool(task, async () => {
      throw new Error('sandbox is gone');
    });
    const r = await executeToolCall(toolMap([tool]), {
      type: 'function',
      function: { name: 'check_solution', arguments: JSON.stringify({ code: RIGHT }) },
    });
    expect(JSON.parse(String(r.message.content))).toEqual({ error: 'sandbox is gone', passed: false });
  });
});

const run = isolatedPythonAvailable() || process.env.CI === 'true';

describe.runIf(run)('check_solution grades in the sandbox [bubblewrap]', () => {
  const pool = new SandboxPool({ create: () => new BubblewrapSandbox(), size: 2 });
  const grade: CodeGrader = (code, tests) => gradeWithPool(pool, code, tests, { timeoutSeconds: 2 });

  it('runs the program on the tests in bubblewrap: accepted, wrong answer, no connection to a local listener', async () => {
    const tools = toolMap([checkSolutionTool(task, grade, 2)]);
    const call = async (code: string) =>
      JSON.parse(
        String(
          (
            await executeToolCall(tools, {
              type: 'function',
              function: { name: 'check_solution', arguments: JSON.stringify({ code }) },
            })
          ).message.content,
        ),
      ) as { passed: boolean; details: { verdict: string; exit_code: number } };
    expect(await call(RIGHT)).toMatchObject({ passed: true, details: { verdict: 'Accepted', exit_code: 0 } });
    expect(await call(WRONG)).toMatchObject({ passed: false, details: { verdict: 'Wrong Answer' } });
    // A right program that first connects to a listener on this machine: unconfined it would pass.
    const connections: number[] = [];
    const server = createServer((socket) => {
      connections.push(1);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const net = await call(
        `import socket\nsocket.create_connection(("127.0.0.1", ${port}), timeout=1)\nprint(int(input()) + 2)`,
      );
      expect([net.passed, connections.length]).toEqual([false, 0]);
    } finally {
      server.close();
    }
  });

  it('offline datasets build agent envs when asked', async () => {
    const { train } = await buildCodeDatasets({
      renderer,
      grade,
      batchSize: 1,
      groupSize: 2,
      numBatches: 1,
      seed: 0,
      agent: { maxGenerationTokens: 16, declareTools: false },
    });
    const envs = await train.getBatch(0)[0]!.makeEnvs();
    expect(envs[0]).toBeInstanceOf(CodeAgentEnv);
  });
});
