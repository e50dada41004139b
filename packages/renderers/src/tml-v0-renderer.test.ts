/**
 * TMLv0 (Inkling) has no chat template. The expected layouts below are facts from the public sources the renderer
 * follows: vLLM's native Inkling renderer fixtures (tool round trip, tool declaration, effort placement and
 * formatting) and upstream's tests (`Thinking effort level: 0.9` by default, effort identical in prompts and
 * supervised examples, prefill refused). The tokenizer is a stand-in: o200k (gpt-oss) with Inkling's control tokens
 * at their ids, `<|content_xml|>` under the Hub vocabulary's `<|unused_200024|>` spelling.
 */
import type { Message } from '@cookbook/core';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { inklingTestTokenizer } from './__fixtures__/test-tokenizers.js';
import { getRenderer } from './registry.js';
import { TrainOnWhat } from './renderer.js';
import { formatThinkingEffort, TmlV0Renderer } from './tml-v0-renderer.js';

const tok = inklingTestTokenizer();
const r = getRenderer('tml_v0', tok);
const EFFORT = '<|message_system|><|content_text|>Thinking effort level: 0.9<|end_message|>';
const text = (ids: readonly number[]) => tok.decode(ids);

describe('tml_v0 layout (vLLM Inkling renderer fixtures)', () => {
  it('reasoning, text, a tool call and its result', () => {
    const msgs: Message[] = [
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'think' },
          { type: 'text', text: 'answer' },
        ],
        tool_calls: [
          { type: 'function', id: 'call_1', function: { name: 'get_weather', arguments: '{"city": "SF"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    ];
    expect(text(r.buildSupervisedExample(msgs).modelInput.toInts())).toBe(
      `${EFFORT}<|message_model|><|content_thinking|>think<|end_message|><|message_model|><|content_text|>answer` +
        '<|end_message|><|message_model|>get_weather<|content_invoke_tool_json|>{"name":"get_weather","args":' +
        '{"city":"SF"}}<|end_message|><|content_model_end_sampling|><|message_tool|>get_weather<|content_text|>sunny' +
        '<|end_message|>',
    );
  });

  it('tool declaration: sorted compact JSON in a tool_declare system part; the effort after the system parts', () => {
    const prefix = r.createConversationPrefixWithTools(
      [
        {
          name: 'get_weather',
          description: 'Get weather information',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
        { name: 'local_tool', description: '', parameters: { z: 1, a: { b: 2 } } },
      ],
      'rules',
    );
    const decl =
      '[{"description":"Get weather information","name":"get_weather","parameters":{"properties":{"city":{"type":' +
      '"string"}},"required":["city"],"type":"object"},"type":"function"},{"description":"","name":"local_tool",' +
      '"parameters":{"a":{"b":2},"z":1},"type":"function"}]';
    expect(prefix).toEqual([
      { role: 'system', content: 'rules' },
      { role: 'tool_declare', content: decl },
    ]);
    expect(text(r.buildGenerationPrompt([...prefix, { role: 'user', content: 'hi' }]).toInts())).toBe(
      `<|message_system|><|content_text|>rules<|end_message|><|message_system|>tool_declare<|unused_200024|>${decl}` +
        `<|end_message|>${EFFORT}<|message_user|><|content_text|>hi<|end_message|><|message_model|>`,
    );
  });

  it('one effort part per conversation, before the first non-system message; default 0.9; formatting', () => {
    const msgs: Message[] = [
      { role: 'system', content: 'rules' },
      { role: 'user', content: 'user1' },
      { role: 'assistant', content: 'assistant1' },
      { role: 'user', content: 'user2' },
    ];
    const out = text(r.buildGenerationPrompt(msgs).toInts());
    expect(out.split('Thinking effort level').length).toBe(2);
    expect(out.indexOf('rules')).toBeLessThan(out.indexOf(EFFORT));
    expect(out.indexOf(EFFORT)).toBeLessThan(out.indexOf('user1'));
    expect(text(r.buildGenerationPrompt([{ role: 'user', content: 'test' }]).toInts())).toBe(
      `${EFFORT}<|message_user|><|content_text|>test<|end_message|><|message_model|>`,
    );
    const low = getRenderer('tml_v0', tok, { effort: 0.8 });
    expect(text(low.buildGenerationPrompt([{ role: 'user', content: 'test' }]).toInts())).toContain('level: 0.8<');
    expect(text(r.buildGenerationPrompt([{ role: 'system', content: 'only' }]).toInts())).toBe(
      `<|message_system|><|content_text|>only<|end_message|>${EFFORT}<|message_model|>`,
    );
    expect([0, -0, 0.1, 0.2, 0.7, 0.9, 0.99, 0.125].map(formatThinkingEffort)).toEqual([
      '0.0',
      '0.0',
      '0.1',
      '0.2',
      '0.7',
      '0.9',
      '0.99',
      '0.125',
    ]);
    for (const bad of [1, 1.5, -0.1, Number.NaN])
      expect(() => new TmlV0Renderer(tok, { effort: bad })).toThrow(/\[0, 1\)/);
  });
});

describe('tml_v0 supervised examples and parsing', () => {
  const convo: Message[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Name a fruit.' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Easy.' },
        { type: 'text', text: 'Apple.' },
      ],
    },
    { role: 'user', content: 'Another?' },
    { role: 'assistant', content: 'Pear.' },
  ];

  it('the generation prompt (effort included) is the weight-0 prefix; the completion parses back', () => {
    const { modelInput, weights } = r.buildSupervisedExample(convo);
    const ids = modelInput.toInts();
    const p = r.buildGenerationPrompt(convo.slice(0, -1)).toInts();
    expect(ids.slice(0, p.length)).toEqual(p);
    expect(weights.slice(0, p.length).every((w) => w === 0)).toBe(true);
    expect(weights.slice(p.length).every((w) => w === 1)).toBe(true);
    expect(text(ids.slice(p.length))).toBe('<|content_text|>Pear.<|end_message|><|content_model_end_sampling|>');
    expect(r.parseResponse(ids.slice(p.length))).toEqual({ message: convo[4], termination: 'stop_sequence' });
    const all = r.buildSupervisedExample(convo, TrainOnWhat.ALL_ASSISTANT_MESSAGES).weights;
    expect(
      all
        .map((w) => String(w))
        .join('')
        .replace(/0+/g, '0')
        .replace(/1+/g, '1'),
    ).toBe('0101');
  });

  it('has the extension property: each prompt extends the previous prompt + completion', () => {
    expect(r.hasExtensionProperty).toBe(true);
    const first = r.buildSupervisedExample(convo.slice(0, 3)).modelInput.toInts();
    const next = r.buildGenerationPrompt(convo.slice(0, 4)).toInts();
    expect(next.slice(0, first.length)).toEqual(first);
  });

  it('parses reasoning, text and tool calls; flags a bad payload; broken structure is malformed', () => {
    const enc = (s: string) => tok.encode(s);
    const sampled = enc(
      '<|content_thinking|>Need data.<|end_message|><|message_model|>get_weather<|content_invoke_tool_json|>' +
        '{"name":"get_weather","args":{"city":"Paris","days":2}}<|end_message|><|content_model_end_sampling|>',
    );
    expect(r.parseResponse(sampled)).toEqual({
      termination: 'stop_sequence',
      message: {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'Need data.' }],
        tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":2}' } }],
      },
    });
    const bad = r.parseResponse(
      enc('f<|content_invoke_tool_json|>{"name":"f","args":[1]}<|end_message|><|content_model_end_sampling|>'),
    );
    expect(bad.message.unparsed_tool_calls?.[0]?.error).toMatch(/'args'/);
    expect(r.parseResponse(enc('<|content_text|>cut')).termination).toBe('malformed');
    expect(r.parseResponse(enc('no kind<|end_message|><|content_model_end_sampling|>')).termination).toBe('malformed');
    const twice = enc('<|content_text|>a<|end_message|><|content_model_end_sampling|><|content_model_end_sampling|>');
    expect(() => r.parseResponse(twice)).toThrow(/at most one stop token/);
    expect(r.getStopSequences()).toEqual([tok.convertTokenToId('<|content_model_end_sampling|>')]);
  });

  it('refuses prefill, other generation roles, unknown roles, images, and a tokenizer without Inkling tokens', () => {
    const user: Message[] = [{ role: 'user', content: 'hi' }];
    expect(() => r.buildGenerationPrompt(user, { prefill: 'Sure' })).toThrow(/does not take a prefill/);
    expect(() => r.buildGenerationPrompt(user, { role: 'user' })).toThrow(/assistant turns only/);
    expect(() => r.buildGenerationPrompt([{ role: 'critic', content: 'x' }])).toThrow(/no role "critic"/);
    const img: Message = { role: 'user', content: [{ type: 'image', image: 'data:image/png;base64,AA==' }] };
    expect(() => r.buildGenerationPrompt([img])).toThrow(/image part/);
    const qwen = getRenderer('tml_v0', getTokenizer('Qwen/Qwen3-8B'));
    expect(() => qwen.buildGenerationPrompt(user)).toThrow(/needs the Inkling tokenizer/);
  });

  it('an assistant message with nothing in it renders one empty text part (it continues the prompt)', () => {
    const msgs: Message[] = [
      { role: 'user', content: 'Say nothing.' },
      { role: 'assistant', content: '' },
    ];
    const { modelInput, weights } = r.buildSupervisedExample(msgs);
    const trained = modelInput.toInts().filter((_, i) => weights[i] === 1);
    expect(text(trained)).toBe('<|content_text|><|end_message|><|content_model_end_sampling|>');
    expect(r.parseResponse(trained).message).toEqual({ role: 'assistant', content: '' });
  });
});
