import { getRenderer, resolveModelSetup } from '@cookbook/renderers';
import { describe, expect, it } from 'vitest';
import { buildChatPrompt, chatChoice, toCookbookMessages } from './chat.js';
import { ChatCompletionRequestSchema } from './request-schemas.js';

const base = resolveModelSetup({ modelName: 'local/qwen3-tiny' });
const thinking = { ...base, rendererName: 'qwen3', renderer: getRenderer('qwen3', base.tokenizer) };

function sampled(setup: typeof base, text: string) {
  const tokens = setup.tokenizer.encode(text);
  return { sequence: { tokens, logprobs: tokens.map(() => -0.5), stopReason: 'stop' as const }, top: undefined };
}

const opts = { userStops: [], logprobs: true, toolsDeclared: true };

describe('chat translation', () => {
  it('tools go in through the renderer: the declared function is in the prompt', () => {
    const req = ChatCompletionRequestSchema.parse({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: 'What is 2+3?' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'add_numbers', description: 'Add two integers', parameters: { type: 'object' } },
        },
      ],
    });
    const { prompt } = buildChatPrompt(base, req);
    const text = base.tokenizer.decode(prompt.toInts());
    expect(text).toContain('add_numbers');
    expect(text).toContain('Add two integers');
    expect(text).toContain('Be terse.');
    expect(text.indexOf('Be terse.')).toBeLessThan(text.indexOf('What is 2+3?'));
    const none = buildChatPrompt(base, { ...req, tool_choice: 'none' });
    expect(base.tokenizer.decode(none.prompt.toInts())).not.toContain('add_numbers');
  });

  it('a tool call comes out as tool_calls with finish_reason tool_calls and null content', () => {
    const c = chatChoice(
      base,
      sampled(base, '<tool_call>\n{"name": "add_numbers", "arguments": {"a": 2, "b": 3}}\n</tool_call><|im_end|>'),
      0,
      opts,
    );
    expect(c.finish_reason).toBe('tool_calls');
    expect(c.message.content).toBeNull();
    expect(c.message.tool_calls).toHaveLength(1);
    expect(c.message.tool_calls?.[0]?.function.name).toBe('add_numbers');
    expect(JSON.parse(c.message.tool_calls?.[0]?.function.arguments ?? '')).toEqual({ a: 2, b: 3 });
    expect(c.message.tool_calls?.[0]?.id).toMatch(/^call_/);
  });

  it('thinking comes out as reasoning_content; the end-of-turn token is not in logprobs', () => {
    const s = sampled(thinking, '<think>\nadd them\n</think>\n\nIt is 5.<|im_end|>');
    const c = chatChoice(thinking, s, 0, opts);
    expect(c.message.reasoning_content?.trim()).toBe('add them');
    expect(c.message.content).toBe('It is 5.');
    expect(c.finish_reason).toBe('stop');
    expect(c.logprobs?.content).toHaveLength(s.sequence.tokens.length - 1);
  });

  it('a user stop string cuts the content before it', () => {
    const c = chatChoice(base, sampled(base, 'one, two, three'), 0, { ...opts, userStops: [', t'] });
    expect(c.message.content).toBe('one');
  });

  it("an assistant's reasoning_content and tool calls go back in; a tool reply gets its function's name", () => {
    const req = ChatCompletionRequestSchema.parse({
      model: 'm',
      messages: [
        { role: 'user', content: 'sum?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'use the tool',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '1' },
        { role: 'developer', content: 'be nice' },
      ],
    });
    const msgs = toCookbookMessages(req.messages);
    expect(msgs[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'use the tool' },
        { type: 'text', text: '' },
      ],
      tool_calls: [{ type: 'function', id: 'c1', function: { name: 'add', arguments: '{"a":1}' } }],
    });
    expect(msgs[2]).toEqual({ role: 'tool', content: '1', tool_call_id: 'c1', name: 'add' });
    expect(msgs[3]).toEqual({ role: 'system', content: 'be nice' });
  });

  it('refuses what it cannot honour, by name', () => {
    const bad = (extra: Record<string, unknown>) =>
      ChatCompletionRequestSchema.safeParse({ model: 'm', messages: [{ role: 'user', content: 'x' }], ...extra });
    expect(bad({ tool_choice: 'required' }).error?.issues[0]?.message).toMatch(/cannot force a tool call/);
    expect(bad({ top_logprobs: 2 }).error?.issues[0]?.message).toMatch(/needs logprobs: true/);
    expect(bad({ top_logprobs: 21, logprobs: true }).success).toBe(false);
    expect(bad({ response_format: { type: 'json_object' } }).error?.issues[0]?.message).toMatch(/response_format/);
  });
});
