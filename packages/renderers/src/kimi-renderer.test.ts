import { type Message, RendererError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { TOOLS } from './__fixtures__/conversations.js';
import { kimiTestTokenizer } from './__fixtures__/kimi/test-tokenizer.js';
import { KIMI_DEFAULT_SYSTEM_PROMPT, KimiRenderer } from './kimi-renderer.js';
import { BUILT_IN_RENDERER_NAMES, getRenderer } from './registry.js';
import { TrainOnWhat } from './renderer.js';

const tok = kimiTestTokenizer();
const k2 = getRenderer('kimi_k2', tok) as KimiRenderer;
const k25 = getRenderer('kimi_k25', tok) as KimiRenderer;
const off = getRenderer('kimi_k25_disable_thinking', tok) as KimiRenderer;
const keep = getRenderer('kimi_k26_preserve_thinking', tok) as KimiRenderer;
const text = (ids: readonly number[]) => tok.decode(ids);
const id = (s: string) => tok.convertTokenToId(s)!;

const reasoned = (thinking: string, answer: string, extra: Partial<Message> = {}): Message => ({
  role: 'assistant',
  content: [
    { type: 'thinking', thinking },
    { type: 'text', text: answer },
  ],
  ...extra,
});
const call = (name: string, args: string, callId?: string) => ({
  type: 'function' as const,
  ...(callId === undefined ? {} : { id: callId }),
  function: { name, arguments: args },
});

/** Two turns: a finished one (reasoning r1), then a tool-calling step (reasoning r2) and its result. */
const AGENTIC: Message[] = [
  { role: 'user', content: 'q1' },
  reasoned('r1', 'a1'),
  { role: 'user', content: 'q2' },
  reasoned('r2', '', { tool_calls: [call('get_weather', '{"city": "Oslo"}')] }),
  { role: 'tool', name: 'get_weather', content: 'cold' },
];

describe('kimi registry', () => {
  it('registers the six upstream names', () => {
    expect(BUILT_IN_RENDERER_NAMES).toEqual(
      expect.arrayContaining([
        'kimi_k2',
        'kimi_k25',
        'kimi_k25_disable_thinking',
        'kimi_k26',
        'kimi_k26_disable_thinking',
        'kimi_k26_preserve_thinking',
      ]),
    );
    expect([k2.version, k25.version, keep.version]).toEqual(['k2', 'k25', 'k25']);
    expect([k25.hasExtensionProperty, off.hasExtensionProperty, keep.hasExtensionProperty]).toEqual([
      false,
      true,
      true,
    ]);
    expect([k25.disablesThinking, off.disablesThinking]).toEqual([false, true]);
    const k25Keep = getRenderer('kimi_k25', tok, { stripThinkingFromHistory: false }) as KimiRenderer;
    expect(k25Keep.hasExtensionProperty).toBe(true);
    expect(() => new KimiRenderer(tok, { version: 'k2', thinking: false })).toThrow(/no thinking switch/);
  });
});

describe('kimi reasoning in history', () => {
  it('keeps reasoning only after the last assistant message without tool calls; preserve keeps it all', () => {
    const p = text(k25.buildGenerationPrompt(AGENTIC).toInts());
    expect(p).toContain('<|im_assistant|>assistant<|im_middle|><think></think>a1<|im_end|>');
    expect(p).toContain(
      '<think>r2</think><|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>',
    );
    expect(p).toContain('<|im_system|>get_weather<|im_middle|>## Return of functions.get_weather:0\ncold<|im_end|>');
    expect(p.endsWith('<|im_assistant|>assistant<|im_middle|><think>')).toBe(true);
    expect(text(keep.buildGenerationPrompt(AGENTIC).toInts())).toContain('<think>r1</think>a1<|im_end|>');
    const q = text(off.buildGenerationPrompt(AGENTIC).toInts());
    expect(q).not.toContain('r1');
    expect(q).not.toContain('r2'); // thinking off: every assistant message gets an empty think block
    expect(q.endsWith('<|im_middle|><think></think>')).toBe(true);
  });

  it('a supervised example keeps the trained message’s reasoning; its generation prompt drops it as history', () => {
    const msgs: Message[] = [{ role: 'user', content: 'q' }, reasoned('why', 'because')];
    for (const r of [k2, k25]) {
      const ex = text(r.buildSupervisedExample(msgs).modelInput.toInts());
      expect(ex).toContain('<think>why</think>because<|im_end|>');
      const next = text(r.buildGenerationPrompt([...msgs, { role: 'user', content: 'more' }]).toInts());
      expect(next).toContain('<think></think>because<|im_end|>');
    }
  });

  it('LAST_ASSISTANT_TURN trains the tool call, the result stays prompt, and the answer', () => {
    const msgs: Message[] = [...AGENTIC, reasoned('r3', 'It is cold.')];
    const { weights } = k25.buildSupervisedExample(msgs, TrainOnWhat.LAST_ASSISTANT_TURN);
    const runs = weights
      .map((w) => (w > 0 ? '1' : '0'))
      .join('')
      .replace(/0+/g, '0')
      .replace(/1+/g, '1');
    expect(runs).toBe('0101');
  });

  it('thinking off refuses to train a reasoned answer', () => {
    expect(() => off.buildSupervisedExample([{ role: 'user', content: 'q' }, reasoned('r', 'a')])).toThrow(
      /disables thinking/,
    );
  });
});

describe('kimi system messages and tool declarations', () => {
  it("K2-Thinking adds its template's default system message; K2.5 / K2.6 add none", () => {
    const sys = `<|im_system|>system<|im_middle|>${KIMI_DEFAULT_SYSTEM_PROMPT}<|im_end|>`;
    expect(text(k2.buildGenerationPrompt([]).toInts())).toBe(`${sys}<|im_assistant|>assistant<|im_middle|>`);
    expect(text(k2.buildGenerationPrompt([{ role: 'user', content: 'hi' }]).toInts()).startsWith(sys)).toBe(true);
    expect(text(k2.buildGenerationPrompt([{ role: 'system', content: 'S' }]).toInts())).not.toContain('Kimi');
    expect(text(k25.buildGenerationPrompt([{ role: 'user', content: 'hi' }]).toInts())).toBe(
      '<|im_user|>user<|im_middle|>hi<|im_end|><|im_assistant|>assistant<|im_middle|><think>',
    );
    // After a declaration with no system message, the default one follows the declaration.
    const [decl] = k2.createConversationPrefixWithTools(TOOLS);
    const p = text(k2.buildGenerationPrompt([decl!, { role: 'user', content: 'hi' }]).toInts());
    expect(p.indexOf('tool_declare')).toBeLessThan(p.indexOf(KIMI_DEFAULT_SYSTEM_PROMPT));
    expect(text(k2.buildGenerationPrompt([decl!]).toInts())).toContain(`<|im_end|>${sys}<|im_assistant|>`);
  });

  it('declares tools first: K2 as sorted compact JSON, K2.5 as TypeScript; the system prompt follows', () => {
    expect(k2.createConversationPrefixWithTools(TOOLS, 'S').map((m) => m.role)).toEqual(['tool_declare', 'system']);
    expect(k2.createConversationPrefixWithTools([])).toEqual([{ role: 'system', content: KIMI_DEFAULT_SYSTEM_PROMPT }]);
    const [d2] = k2.createConversationPrefixWithTools(TOOLS);
    expect((d2!.content as string).startsWith('[{"function":{"description":"Get the current weather')).toBe(true);
    const d25 = k25.createConversationPrefixWithTools(TOOLS);
    expect(d25).toHaveLength(1);
    expect(d25[0]!.content).toContain('namespace functions {\n// Get the current weather in a city.\ntype get_weather');
    expect(k25.createConversationPrefixWithTools([], 'S')).toEqual([{ role: 'system', content: 'S' }]);
  });
});

describe('kimi tool calls and results', () => {
  it('fills missing call ids as functions.{name}:{index} and answers results in order', () => {
    const msgs: Message[] = [
      { role: 'user', content: 'both?' },
      { role: 'assistant', content: '', tool_calls: [call('get_weather', '{}'), call('get_time', '{}', 'custom_7')] },
      { role: 'tool', content: 'w' },
      { role: 'tool', content: 't' },
      { role: 'tool', content: 'x', tool_call_id: 'given' },
    ];
    const p = text(k25.buildGenerationPrompt(msgs).toInts());
    expect(p).toContain('<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{}<|tool_call_end|>');
    expect(p).toContain('<|tool_call_begin|>custom_7<|tool_call_argument_begin|>');
    expect(p).toContain('<|im_system|>tool<|im_middle|>## Return of functions.get_weather:0\nw<|im_end|>');
    expect(p).toContain('## Return of custom_7\nt<|im_end|>');
    expect(p).toContain('## Return of given\nx<|im_end|>');
  });

  it('parses reasoning, text and tool calls back from sampled tokens', () => {
    const msg = reasoned('Need data.', 'Checking.', {
      tool_calls: [
        call('get_weather', '{"city": "Paris"}', 'functions.get_weather:0'),
        call('get_time', '{"tz": "UTC"}'),
      ],
    });
    for (const r of [k2, k25, keep]) {
      const { modelInput, weights } = r.buildSupervisedExample([{ role: 'user', content: 'q' }, msg]);
      const action = modelInput.toInts().filter((_, i) => weights[i] === 1);
      const parsed = r.parseResponse(action);
      expect(parsed.termination).toBe('stop_sequence');
      expect(parsed.message).toEqual({
        ...msg,
        tool_calls: [msg.tool_calls![0], { ...msg.tool_calls![1], id: 'functions.get_time:1' }],
      });
    }
  });

  it('K2.5 restores its prefilled <think>; a thinking-off answer parses to plain text', () => {
    const sampled = [...tok.encode('weighing it</think>Yes.'), id('<|im_end|>')];
    expect(k25.parseResponse(sampled).message.content).toEqual([
      { type: 'thinking', thinking: 'weighing it' },
      { type: 'text', text: 'Yes.' },
    ]);
    expect(off.parseResponse([...tok.encode('Yes.'), id('<|im_end|>')]).message).toEqual({
      role: 'assistant',
      content: 'Yes.',
    });
  });

  it('reports invalid arguments, unterminated tool blocks and truncated responses', () => {
    const bad = k25.parseResponse(
      tok.encode(
        '</think><|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{bad<|tool_call_end|><|tool_calls_section_end|><|im_end|>',
      ),
    );
    expect(bad.message.tool_calls).toBeUndefined();
    expect(bad.message.unparsed_tool_calls?.[0]?.error).toMatch(/Invalid JSON in the arguments of functions\.f:0/);
    const open = k2.parseResponse(
      tok.encode('ok<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|im_end|>'),
    );
    expect(open.message.unparsed_tool_calls?.[0]?.error).toMatch(/unterminated tool block/);
    expect(open.message.content).toBe('ok');
    const cut = k25.parseResponse(tok.encode('half a thou'));
    expect(cut).toEqual({ message: { role: 'assistant', content: 'half a thou' }, termination: 'malformed' });
    expect(() => k25.parseResponse(tok.encode('a<|im_end|>b<|im_end|>'))).toThrow(RendererError);
  });
});

describe('kimi message text', () => {
  it('quoted control strings stay text, in every field', () => {
    const q = '<|im_end|><think></think><|tool_call_begin|>';
    const msgs: Message[] = [
      { role: 'user', content: `say ${q}` },
      reasoned(`why ${q}`, `ok ${q}`, { tool_calls: [call('get_weather', JSON.stringify({ q }), `id ${q}`)] }),
      { role: 'tool', name: `n${q}`, content: `res ${q}` },
    ];
    const ids = k25.buildGenerationPrompt(msgs).toInts();
    const count = (s: string) => ids.filter((t) => t === id(s)).length;
    expect([count('<|im_end|>'), count('<think>'), count('</think>'), count('<|tool_call_begin|>')]).toEqual([
      3, 2, 1, 1,
    ]);
    expect(text(ids).split(q)).toHaveLength(9); // 8 copies: the call id twice (call and result)
  });

  it('a bad image part is named (K2.5); K2-Thinking refuses images (vision.test.ts renders good ones)', () => {
    const img: Message = { role: 'user', content: [{ type: 'image', image: 'data:image/png;base64,AAAA' }] };
    expect(() => k25.buildGenerationPrompt([img])).toThrow(/messages\[0\]\.content\[0\]: unknown image format/);
    expect(() => k2.buildGenerationPrompt([img])).toThrow(/renders text only/);
    expect(() => k25.buildGenerationPrompt([{ role: 'user', content: [{ type: 'thinking', thinking: 'x' }] }])).toThrow(
      /cannot hold thinking parts/,
    );
  });
});
