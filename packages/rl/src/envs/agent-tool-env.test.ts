import { getTextContent, type Message } from '@cookbook/core';
import { getRenderer, type Renderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { defineTool } from '@cookbook/tools';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AgentToolEnv, type AgentToolEnvOptions, PARSE_RETRY_MESSAGE } from './agent-tool-env.js';

const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
const add = defineTool({
  name: 'add',
  description: 'Add two integers',
  parameters: z.object({ a: z.number().int(), b: z.number().int() }),
  run: ({ a, b }) => ({ content: String(a + b), reward: 0.1 }),
});

/** The tokens a model samples for `reply` after the conversation so far (the renderer's own rendering of the turn). */
function sampled(r: Renderer, history: readonly Message[], reply: Message): number[] {
  const prompt = r.buildGenerationPrompt(history).toInts();
  const full = r.buildSupervisedExample([...history, reply]).modelInput.toInts();
  expect(full.slice(0, prompt.length)).toEqual(prompt);
  return full.slice(prompt.length);
}
const callMsg = (name: string, args: string): Message => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ type: 'function', function: { name, arguments: args } }],
});
const answer = (text: string): Message => ({ role: 'assistant', content: text });

function env(options: Partial<AgentToolEnvOptions> = {}): AgentToolEnv {
  return new AgentToolEnv({
    renderer,
    tools: [add],
    messages: [{ role: 'user', content: 'What is 2 + 3?' }],
    reward: ({ finalAnswer }) => (finalAnswer !== undefined && getTextContent(finalAnswer) === '5' ? 1 : 0),
    ...options,
  });
}

/** Step `e` with the renderer's tokens for `reply`. */
async function say(e: AgentToolEnv, reply: Message) {
  return e.step(sampled(renderer, e.conversation, reply));
}

afterEach(() => {
  vi.useRealTimers();
});

describe('AgentToolEnv', () => {
  it('runs a call, shows its result, and grades the final answer', async () => {
    const e = env();
    await e.initialObservation();
    const s1 = await say(e, callMsg('add', '{"a": 2, "b": 3}'));
    expect(s1.episodeDone).toBe(false);
    expect(s1.reward).toBeCloseTo(0.1); // the tool's per-call reward
    expect(e.conversation.at(-1)).toEqual({ role: 'tool', content: '5', name: 'add' });
    expect(renderer.tokenizer.decode(s1.nextObservation.toInts())).toContain('<tool_response>\n5\n</tool_response>');
    const s2 = await say(e, answer('5'));
    expect(s2.episodeDone).toBe(true);
    expect(s2.reward).toBe(1);
    expect(s2.metrics).toMatchObject({
      'episode/turns': 2,
      'episode/tool_calls': 1,
      'episode/tool_errors': 0,
      'end/final_answer': 1,
      truncated: 0,
    });
    expect(s2.logs).toEqual({ end_reason: 'final_answer' });
  });

  it.each([
    ['bad JSON', callMsg('add', '{"a": 2,'), /not valid JSON|could not parse the tool call/],
    ['a schema violation', callMsg('add', '{"a": "two", "b": 3}'), /invalid arguments for add: a:/],
    ['an unknown tool', callMsg('mul', '{"a": 2, "b": 3}'), /unknown tool "mul"\. Available tools: add\./],
  ])('turns %s into a tool error message the model sees, and goes on', async (_label, reply, pattern) => {
    const e = env();
    await e.initialObservation();
    const s = await say(e, reply);
    expect(s.episodeDone).toBe(false);
    const last = e.conversation.at(-1)!;
    expect(last.role).toBe('tool');
    expect(getTextContent(last)).toMatch(/^Error: /);
    expect(getTextContent(last)).toMatch(pattern);
    expect(renderer.tokenizer.decode(s.nextObservation.toInts())).toContain(getTextContent(last));
    const end = await say(e, answer('5'));
    expect(end.metrics['episode/tool_errors']).toBe(1);
  });

  it('cuts a hanging tool at max_tool_call_seconds', async () => {
    vi.useFakeTimers();
    const hang = defineTool({
      name: 'hang',
      description: '',
      parameters: z.object({}),
      run: () => new Promise<string>(() => {}),
    });
    const e = env({ tools: [hang], limits: { maxToolCallSeconds: 3 } });
    await e.initialObservation();
    const pending = say(e, callMsg('hang', '{}'));
    await vi.advanceTimersByTimeAsync(3000);
    const s = await pending;
    expect(getTextContent(e.conversation.at(-1)!)).toBe('Error: hang did not finish within 3 seconds.');
    expect(s.episodeDone).toBe(false);
    const end = await say(e, answer('no idea'));
    expect(end.metrics).toMatchObject({ 'episode/tool_timeouts': 1, 'episode/tool_errors': 1 });
  });

  it('ends at max_turns, grades the final state and reports the truncation', async () => {
    const e = env({ limits: { maxTurns: 2 } });
    await e.initialObservation();
    await say(e, callMsg('add', '{"a": 2, "b": 3}'));
    const s = await say(e, callMsg('add', '{"a": 1, "b": 1}'));
    expect(s.episodeDone).toBe(true);
    expect(s.nextObservation.length).toBe(0);
    expect(s.metrics).toMatchObject({ truncated: 1, 'truncated/max_turns': 1, 'end/max_turns': 1, 'episode/turns': 2 });
    expect(s.logs).toEqual({ end_reason: 'max_turns', truncation: 'max_turns' });
    expect(s.reward).toBeCloseTo(0.1); // the call's reward; no final answer, so the grader gives 0
  });

  it('ends at max_total_tokens', async () => {
    const e = env({ limits: { maxTotalTokens: 1 } });
    const first = await e.initialObservation();
    expect(first.observation.length).toBeGreaterThan(1);
    const s = await say(e, callMsg('add', '{"a": 2, "b": 3}'));
    expect(s.metrics).toMatchObject({ 'truncated/max_tokens': 1, 'end/max_tokens': 1 });
    expect(s.logs?.truncation).toBe('max_tokens');
  });

  it('ends at max_episode_seconds (injected clock)', async () => {
    let now = 0;
    const e = env({ limits: { maxEpisodeSeconds: 10 }, clock: () => now });
    await e.initialObservation();
    now = 9_000;
    expect((await say(e, callMsg('add', '{"a": 2, "b": 3}'))).episodeDone).toBe(false);
    now = 10_000;
    const s = await say(e, callMsg('add', '{"a": 2, "b": 3}'));
    expect(s.metrics).toMatchObject({ 'truncated/timeout': 1, 'end/timeout': 1 });
  });

  it('ends a malformed reply with the penalty, and masks it from the loss when asked', async () => {
    const e = env({ parseError: { penalty: 0.5, mask: true } });
    await e.initialObservation();
    const cut = renderer.tokenizer.encode('<tool_call>\n{"name": "add"'); // no stop token: cut at max_tokens
    const s = await e.step(cut, { stopReason: 'length' });
    expect(s.episodeDone).toBe(true);
    expect(s.reward).toBe(-0.5);
    expect(s.metrics).toMatchObject({ parse_error: 1, parse_error_masked: 1, 'end/parse_error': 1 });
  });

  it('lets the model retry a malformed reply with parse_error policy retry', async () => {
    const e = env({ parseError: { policy: 'retry', penalty: 0.25, maxRetries: 1 } });
    await e.initialObservation();
    const s1 = await e.step(renderer.tokenizer.encode('The answer is'), { stopReason: 'length' });
    expect(s1.episodeDone).toBe(false);
    expect(s1.reward).toBe(-0.25);
    expect(e.conversation.at(-1)).toEqual({ role: 'user', content: PARSE_RETRY_MESSAGE });
    expect('parse_error_masked' in s1.metrics).toBe(false);
    const s2 = await e.step(renderer.tokenizer.encode('still'), { stopReason: 'length' });
    expect(s2.episodeDone).toBe(true); // a second consecutive failure exceeds max_retries
    expect(s2.metrics['episode/parse_errors']).toBe(2);
  });

  it('ends when a tool asks to stop, and runs the calls of one reply concurrently', async () => {
    const order: string[] = [];
    const release: Array<() => void> = [];
    const slow = defineTool({
      name: 'slow',
      description: '',
      parameters: z.object({ tag: z.string() }),
      run: ({ tag }) =>
        new Promise<{ content: string; stop: boolean }>((resolve) => {
          order.push(tag);
          release.push(() => resolve({ content: tag, stop: tag === 'b' }));
        }),
    });
    const e = env({ tools: [slow] });
    await e.initialObservation();
    const reply: Message = {
      role: 'assistant',
      content: '',
      tool_calls: [
        { type: 'function', function: { name: 'slow', arguments: '{"tag": "a"}' } },
        { type: 'function', function: { name: 'slow', arguments: '{"tag": "b"}' } },
      ],
    };
    const pending = say(e, reply);
    await vi.waitFor(() => expect(order).toEqual(['a', 'b'])); // both started before either finished
    for (const r of release) r();
    const s = await pending;
    expect(s.episodeDone).toBe(true);
    expect(s.metrics['end/tool_stop']).toBe(1);
    expect(e.conversation.slice(-2).map((m) => m.content)).toEqual(['a', 'b']);
  });
});
