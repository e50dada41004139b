import type { Message } from '@cookbook/core';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import {
  type Case,
  PLAIN_CASES,
  THINKING_CASES,
  THINKING_TOOL_CASES,
  TOOL_CASES,
  TOOLS,
  toHfMessages,
} from './__fixtures__/conversations.js';
import { rendererMessages, renderTemplate, templateMessages } from './__fixtures__/template.js';
import { Qwen3Renderer } from './qwen3-renderer.js';
import { TrainOnWhat } from './renderer.js';

const tok = getTokenizer('Qwen/Qwen3-8B');
const thinking = new Qwen3Renderer(tok);
const noThink = new Qwen3Renderer(tok, { mode: 'disable_thinking' });
const instruct = new Qwen3Renderer(tok, { mode: 'instruct' });
const enc = (s: string) => tok.encode(s);

const ALL: Case[] = [...PLAIN_CASES, ...THINKING_CASES, ...TOOL_CASES, ...THINKING_TOOL_CASES];

describe('qwen3 parity with the official template (generation prompt)', () => {
  for (const c of ALL) {
    it(`qwen3: ${c.name}`, () => {
      const expected = renderTemplate(tok, { ...templateMessages(c), add_generation_prompt: true });
      const got = thinking.buildGenerationPrompt(
        rendererMessages(c, (t, s) => thinking.createConversationPrefixWithTools(t, s)),
      );
      expect(tok.decode(got.toInts())).toBe(expected);
      expect(got.toInts()).toEqual(enc(expected));
    });
    it(`qwen3_disable_thinking (enable_thinking=false): ${c.name}`, () => {
      const expected = renderTemplate(tok, {
        ...templateMessages(c),
        add_generation_prompt: true,
        enable_thinking: false,
      });
      const got = noThink.buildGenerationPrompt(
        rendererMessages(c, (t, s) => noThink.createConversationPrefixWithTools(t, s)),
      );
      expect(got.toInts()).toEqual(enc(expected));
    });
  }
  // The Instruct-2507 template is the Qwen3 template without think framing: identical wherever no reasoning appears.
  for (const c of [...PLAIN_CASES, ...TOOL_CASES]) {
    it(`qwen3_instruct: ${c.name}`, () => {
      const expected = renderTemplate(tok, { ...templateMessages(c), add_generation_prompt: true });
      const got = instruct.buildGenerationPrompt(
        rendererMessages(c, (t, s) => instruct.createConversationPrefixWithTools(t, s)),
      );
      expect(got.toInts()).toEqual(enc(expected));
    });
  }
});

const LAST_TURNS: { name: string; messages: Message[] }[] = [
  {
    name: 'reasoned answer',
    messages: [
      { role: 'user', content: 'What is 6*7?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Six sevens.' },
          { type: 'text', text: '42' },
        ],
      },
    ],
  },
  {
    name: 'answer without reasoning',
    messages: [
      { role: 'system', content: 'Be exact.' },
      { role: 'user', content: 'Capital of France?' },
      { role: 'assistant', content: 'Paris.' },
    ],
  },
  {
    name: 'after tool result',
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'Call the tool.' }],
        tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
      },
      { role: 'tool', content: 'sunny' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'It is sunny.' },
          { type: 'text', text: 'Sunny!' },
        ],
      },
    ],
  },
];

describe('qwen3 parity with the official template (supervised example, last turn)', () => {
  for (const c of LAST_TURNS) {
    it(c.name, () => {
      const expected = renderTemplate(tok, { ...templateMessages({ name: c.name, messages: c.messages }) });
      const { modelInput } = thinking.buildSupervisedExample(c.messages);
      // The template closes every message with "<|im_end|>\n"; the example ends at <|im_end|>.
      expect(modelInput.toInts()).toEqual(enc(expected.replace(/\n$/, '')));
    });
  }
});

describe('qwen3 documented differences', () => {
  it('string content is not searched for inline <think> (the template would strip it from history)', () => {
    const msgs: Message[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '<think>\nr\n</think>\n\na' },
      { role: 'user', content: 'q2' },
    ];
    const expected = renderTemplate(tok, { messages: msgs, add_generation_prompt: true });
    expect(expected).toContain('<|im_start|>assistant\na<|im_end|>');
    expect(tok.decode(thinking.buildGenerationPrompt(msgs).toInts())).toContain(
      '<|im_start|>assistant\n<think>\nr\n</think>\n\na<|im_end|>',
    );
  });
  it('stripThinkingFromHistory=false keeps reasoning of earlier turns', () => {
    const keep = new Qwen3Renderer(tok, { stripThinkingFromHistory: false });
    const c = THINKING_CASES[0]!;
    const text = tok.decode(keep.buildGenerationPrompt(c.messages).toInts());
    expect(text).toContain('<|im_start|>assistant\n<think>\n17*3 = 51.\n</think>\n\n51<|im_end|>');
    expect(keep.hasExtensionProperty).toBe(true);
    expect(thinking.hasExtensionProperty).toBe(false);
  });
  it('qwen3_instruct renders thinking parts raw', () => {
    const text = tok.decode(instruct.buildGenerationPrompt(THINKING_CASES[0]!.messages).toInts());
    expect(text).toContain('<|im_start|>assistant\n<think>17*3 = 51.</think>51<|im_end|>');
  });
  it('quoted <think>, <tool_call>, <tool_response> tags stay text; the template + tokenizer would give tokens', () => {
    const tags = ['<think>', '</think>', '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>'];
    const q = tags.join(' ');
    const msgs: Message[] = [
      { role: 'system', content: `sys ${q}` },
      { role: 'user', content: `quote ${q}` },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: `reason ${q}` },
          { type: 'text', text: `answer ${q}` },
        ],
        tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ q }) } }],
      },
      { role: 'tool', content: `result ${q}` },
    ];
    const tagIds = tags.map((t) => tok.convertTokenToId(t)!);
    const count = (ids: number[]) => tagIds.map((id) => ids.filter((t) => t === id).length);
    for (const r of [thinking, noThink, instruct]) {
      const ids = r.buildGenerationPrompt(msgs).toInts();
      // Only the renderer's own framing: the assistant's think block (instruct renders its thinking part raw, in
      // tags; disable_thinking adds its empty prefilled block), one tool call, one tool response.
      const think = r.mode === 'disable_thinking' ? 2 : 1;
      expect(count(ids), r.mode).toEqual([think, think, 1, 1, 1, 1]);
      const text = tok.decode(ids);
      for (const m of [`sys ${q}`, `quote ${q}`, `reason ${q}`, `answer ${q}`, `result ${q}`])
        expect(text).toContain(m);
    }
    // The official template renders the same text, but its tokenizer turns every quoted tag into the token.
    const expected = renderTemplate(tok, { messages: toHfMessages(msgs), add_generation_prompt: true });
    expect(count(enc(expected)).every((n) => n > 1)).toBe(true);
    expect(tok.decode(thinking.buildGenerationPrompt(msgs).toInts())).toBe(expected);
  });
  it("the tool declaration's <tool_call> tags are tokens; the same text quoted by a user stays text", () => {
    const [sys] = thinking.createConversationPrefixWithTools(TOOLS, 'S');
    const call = tok.convertTokenToId('<tool_call>')!;
    const declared = thinking.buildGenerationPrompt([sys!, { role: 'user', content: 'hi' }]).toInts();
    expect(declared.filter((t) => t === call)).toHaveLength(2);
    const quoted = thinking.buildGenerationPrompt([{ role: 'user', content: sys!.content as string }]).toInts();
    expect(quoted.filter((t) => t === call)).toHaveLength(0);
    const inner = thinking.buildGenerationPrompt([{ role: 'system', content: `${sys!.content as string} ok` }]);
    expect(inner.toInts().filter((t) => t === call)).toHaveLength(0);
  });
  it('literal special-token text inside content stays plain text', () => {
    const ids = thinking.buildGenerationPrompt([{ role: 'user', content: 'say <|im_end|> please' }]).toInts();
    expect(ids.filter((t) => t === tok.convertTokenToId('<|im_end|>'))).toHaveLength(1);
    expect(tok.decode(ids)).toContain('say <|im_end|> please');
  });
});

describe('qwen3 supervised examples and parsing', () => {
  it('disable_thinking: the empty think block is prompt (weight 0)', () => {
    const msgs: Message[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
    ];
    const { modelInput, weights } = noThink.buildSupervisedExample(msgs);
    const prompt = noThink.buildGenerationPrompt(msgs.slice(0, 1)).toInts();
    const ids = modelInput.toInts();
    expect(ids.slice(0, prompt.length)).toEqual(prompt);
    expect(weights.slice(0, prompt.length).every((w) => w === 0)).toBe(true);
    expect(tok.decode(ids.filter((_, i) => weights[i] === 1))).toBe('Hello!<|im_end|>');
  });
  it('disable_thinking refuses a reasoned trained turn and a turn with no user message', () => {
    expect(() => noThink.buildSupervisedExample(LAST_TURNS[0]!.messages)).toThrow(/disables thinking/);
    expect(() => noThink.buildSupervisedExample([{ role: 'assistant', content: 'x' }])).toThrow(/disables thinking/);
  });
  it('parses thinking, text and tool calls back', () => {
    const msg: Message = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Need weather.' },
        { type: 'text', text: 'Checking.' },
      ],
      tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
    };
    const msgs: Message[] = [{ role: 'user', content: 'Weather?' }, msg];
    const { modelInput, weights } = thinking.buildSupervisedExample(msgs);
    const action = modelInput.toInts().filter((_, i) => weights[i] === 1);
    expect(thinking.parseResponse(action)).toEqual({ message: msg, termination: 'stop_sequence' });
  });
  it('flags invalid and unterminated tool calls', () => {
    const bad = enc('<tool_call>\n{"name": 1}\n</tool_call><|im_end|>');
    const r = thinking.parseResponse(bad);
    expect(r.message.unparsed_tool_calls?.[0]?.error).toMatch(/name/);
    const cut = thinking.parseResponse(enc('<tool_call>\n{"name": "x", "argu'));
    expect(cut.termination).toBe('malformed');
    const open = thinking.parseResponse(enc('ok\n<tool_call>\n{"name": "x"<|im_end|>'));
    expect(open.message.unparsed_tool_calls?.[0]?.error).toMatch(/unterminated tool block/);
  });
  it('tool declaration text matches the template', () => {
    const [sys] = thinking.createConversationPrefixWithTools(TOOLS, 'S');
    const expected = renderTemplate(tok, {
      messages: [{ role: 'system', content: 'S' }],
      tools: TOOLS.map((t) => ({ type: 'function', function: t })),
    });
    expect(`<|im_start|>system\n${sys!.content as string}<|im_end|>\n`).toBe(expected);
  });
  it('TrainOnWhat.ALL_TOKENS trains everything', () => {
    const { weights } = thinking.buildSupervisedExample(LAST_TURNS[1]!.messages, TrainOnWhat.ALL_TOKENS);
    expect(weights.every((w) => w === 1)).toBe(true);
  });
});

describe('qwen3 parsing of an empty completion', () => {
  it('a completion that is only the stop token parses to an empty assistant message', () => {
    const r = new Qwen3Renderer(tok, { mode: 'disable_thinking' });
    const imEnd = tok.convertTokenToId('<|im_end|>')!;
    expect(tok.decode([])).toBe('');
    const parsed = r.parseResponse([imEnd]);
    expect(parsed.termination).toBe('stop_sequence');
    expect(parsed.message.role).toBe('assistant');
  });
});
