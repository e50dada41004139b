import type { Message, ToolSpec } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import {
  type Case,
  PLAIN_CASES,
  THINKING_CASES,
  THINKING_TOOL_CASES,
  TOOL_CASES,
  TOOLS,
  toHfMessages,
  toHfTools,
} from './__fixtures__/conversations.js';
import { nemotronTestTokenizer } from './__fixtures__/nemotron.js';
import { rendererMessages, renderTemplate } from './__fixtures__/template.js';
import { Nemotron3Renderer, type Nemotron3RendererOptions } from './nemotron3-renderer.js';
import { getRenderer } from './registry.js';
import { TrainOnWhat } from './renderer.js';

const tok = nemotronTestTokenizer();
const enc = (s: string) => tok.encode(s);
const make = (o: Nemotron3RendererOptions = {}) => new Nemotron3Renderer(tok, o);

const call = (name: string, args: string, id?: string): NonNullable<Message['tool_calls']>[number] => ({
  type: 'function',
  ...(id === undefined ? {} : { id }),
  function: { name, arguments: args },
});

/** Template messages: thinking → reasoning_content, tool-call arguments as the mapping the template iterates. */
function hfMessages(messages: readonly Message[]): unknown[] {
  return toHfMessages(messages).map((m) =>
    m.tool_calls
      ? {
          ...m,
          tool_calls: m.tool_calls.map((c) => ({
            ...c,
            function: { ...c.function, arguments: JSON.parse(c.function.arguments) },
          })),
        }
      : m,
  );
}

interface Vars {
  enable_thinking?: boolean;
  truncate_history_thinking?: boolean;
  add_generation_prompt?: boolean;
}

/** The official template's text for a case (its system prompt first, its tools in `tools`). */
function template(c: Case, vars: Vars = {}): string {
  const msgs: Message[] = c.systemPrompt ? [{ role: 'system', content: c.systemPrompt }, ...c.messages] : c.messages;
  return renderTemplate(tok, {
    messages: hfMessages(msgs),
    ...(c.tools ? { tools: toHfTools(c.tools) } : {}),
    ...vars,
  });
}

const RICH_TOOL: ToolSpec = {
  name: 'search',
  description: '  Search for items  ',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Search query', default: '*' },
      max_results: { type: 'integer', description: 'Maximum number of results', minimum: 1, maximum: 100 },
      tags: { type: 'array', description: 'Filter tags', items: { type: 'string' } },
    },
    required: ['query'],
  },
};

/** Conversations the shared fixtures lack: the template's trim and history branches. */
const NEMOTRON_CASES: Case[] = [
  {
    name: 'historical tool call with reasoning and text, then a later question',
    tools: [TOOLS[0]!],
    systemPrompt: 'You are a helpful assistant.',
    messages: [
      { role: 'user', content: 'Weather in NYC?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I need to check the weather.' },
          { type: 'text', text: '  Let me check that for you.  ' },
        ],
        tool_calls: [call('get_weather', '{"city": "New York, NY", "days": [1, 2], "opts": {"unit": "c"}}')],
      },
      { role: 'tool', content: '{"temperature": 72}' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'It is 72F.' },
          { type: 'text', text: "It's 72°F.\n\n" },
        ],
      },
      { role: 'user', content: '  Thanks!  ' },
    ],
  },
  {
    name: 'reasoning with an empty answer, whitespace-only reasoning, history without reasoning',
    messages: [
      { role: 'system', content: '  padded system  ' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: '\n  \n' },
          { type: 'text', text: '\n  hello ' },
        ],
      },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: ' only reasoning ' }] },
      { role: 'user', content: 'and?' },
    ],
  },
  {
    name: 'extra schema keys and a padded description in the tool declaration',
    tools: [RICH_TOOL],
    messages: [{ role: 'user', content: 'Search for cats' }],
  },
  {
    name: 'in-flight tool cycle after the last user message keeps its reasoning',
    tools: TOOLS,
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Call the tool first.' },
          { type: 'text', text: 'calling' },
        ],
        tool_calls: [call('get_weather', '{"city": "Paris"}')],
      },
      { role: 'tool', content: '{"temp": 20}' },
      { role: 'tool', content: '  spaced result  ' },
    ],
  },
];

const ALL: Case[] = [...PLAIN_CASES, ...THINKING_CASES, ...TOOL_CASES, ...THINKING_TOOL_CASES, ...NEMOTRON_CASES];

describe('nemotron3 parity with the official Nano template (generation prompt)', () => {
  const modes: [string, Nemotron3RendererOptions, Vars][] = [
    ['nemotron3', {}, {}],
    ['nemotron3_disable_thinking', { thinking: false }, { enable_thinking: false }],
    ['nemotron3_preserve_thinking', { stripThinkingFromHistory: false }, { truncate_history_thinking: false }],
  ];
  for (const [name, options, vars] of modes) {
    const r = make(options);
    for (const c of ALL) {
      it(`${name}: ${c.name}`, () => {
        const expected = template(c, { ...vars, add_generation_prompt: true });
        const got = r.buildGenerationPrompt(rendererMessages(c, (t, s) => r.createConversationPrefixWithTools(t, s)));
        expect(tok.decode(got.toInts())).toBe(expected);
        expect(got.toInts()).toEqual(enc(expected));
      });
    }
  }
});

describe('nemotron3 parity with the official Nano template (supervised examples)', () => {
  // Each case cut after each assistant message: the example is the template text without its final newline.
  const ends = ALL.flatMap((c) =>
    c.messages.flatMap((m, i) => (m.role === 'assistant' ? [{ ...c, messages: c.messages.slice(0, i + 1) }] : [])),
  );
  const modes: [string, Nemotron3RendererOptions, Vars][] = [
    ['nemotron3', {}, {}],
    ['nemotron3_preserve_thinking', { stripThinkingFromHistory: false }, { truncate_history_thinking: false }],
  ];
  for (const [name, options, vars] of modes) {
    const r = make(options);
    ends.forEach((c, k) => {
      it(`${name}: ${c.name} (${k})`, () => {
        const expected = template(c, vars).replace(/\n$/, '');
        const msgs = rendererMessages(c, (t, s) => r.createConversationPrefixWithTools(t, s));
        const { modelInput, weights } = r.buildSupervisedExample(msgs, TrainOnWhat.ALL_ASSISTANT_MESSAGES);
        expect(tok.decode(modelInput.toInts())).toBe(expected);
        expect(modelInput.toInts()).toEqual(enc(expected));
        expect(weights).toHaveLength(modelInput.length);
      });
    });
  }
  it('nemotron3_disable_thinking: a reasoning-free last turn after reasoned history', () => {
    const r = make({ thinking: false });
    const msgs: Message[] = [
      { role: 'user', content: 'First?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'r1' },
          { type: 'text', text: 'A1' },
        ],
      },
      { role: 'user', content: 'Second?' },
      { role: 'assistant', content: 'A2' },
    ];
    const expected = renderTemplate(tok, { messages: hfMessages(msgs), enable_thinking: false }).replace(/\n$/, '');
    const { modelInput, weights } = r.buildSupervisedExample(msgs);
    expect(modelInput.toInts()).toEqual(enc(expected));
    expect(tok.decode(modelInput.toInts().filter((_, i) => weights[i] === 1))).toBe('A2<|im_end|>');
  });
});

describe('nemotron3 reasoning-effort and Ultra variants', () => {
  const conversation: Message[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'First question.' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'R1' },
        { type: 'text', text: 'A1' },
      ],
    },
    { role: 'user', content: 'Second question.' },
  ];
  it('nemotron3_low_thinking appends the low-effort marker to the last user message only (Super template)', () => {
    const r = getRenderer('nemotron3_low_thinking', tok);
    const withMarker = conversation.map((m, i) =>
      i === 3 ? { ...m, content: `${m.content as string}\n\n{reasoning effort: low}` } : m,
    );
    const expected = renderTemplate(tok, { messages: hfMessages(withMarker), add_generation_prompt: true });
    expect(r.buildGenerationPrompt(conversation).toInts()).toEqual(enc(expected));
    expect(r.hasExtensionProperty).toBe(false);
  });
  it('nemotron3_ultra_medium_thinking appends the efficient marker; Ultra writes no newlines around </think>', () => {
    const r = getRenderer('nemotron3_ultra_medium_thinking', tok);
    const text = tok.decode(r.buildGenerationPrompt(conversation).toInts());
    expect(text).toBe(
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nFirst question.<|im_end|>\n' +
        '<|im_start|>assistant\n<think></think>A1<|im_end|>\n' +
        '<|im_start|>user\nSecond question.\n\n{reasoning effort: efficient}<|im_end|>\n<|im_start|>assistant\n<think>\n',
    );
  });
  it('nemotron3_ultra: reasoning as <think>\\n…</think> directly followed by the answer and the tool calls', () => {
    const r = getRenderer('nemotron3_ultra', tok);
    const msgs: Message[] = [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Check.' },
          { type: 'text', text: 'Checking.' },
        ],
        tool_calls: [call('get_weather', '{"city": "Paris", "n": 2}')],
      },
    ];
    const text = tok.decode(r.buildSupervisedExample(msgs).modelInput.toInts());
    expect(text).toBe(
      '<|im_start|>system\n<|im_end|>\n<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n' +
        '<think>\nCheck.</think>Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n' +
        '<parameter=n>\n2\n</parameter>\n</function>\n</tool_call>\n<|im_end|>',
    );
    const history = tok.decode(
      r.buildGenerationPrompt([...msgs, { role: 'tool', content: 'ok' }, { role: 'user', content: 'And?' }]).toInts(),
    );
    expect(history).toContain('<|im_start|>assistant\n<think></think>Checking.\n<tool_call>');
    const preserve = getRenderer('nemotron3_ultra_preserve_thinking', tok);
    expect(preserve.hasExtensionProperty).toBe(true);
    const kept = tok.decode(
      preserve
        .buildGenerationPrompt([
          ...msgs.slice(0, 1),
          { role: 'assistant', content: msgs[1]!.content },
          { role: 'user', content: 'And?' },
        ])
        .toInts(),
    );
    expect(kept).toContain('<|im_start|>assistant\n<think>\nCheck.</think>Checking.<|im_end|>');
  });
  it('nemotron3_ultra_disable_thinking prefills an empty think block and refuses a reasoned trained turn', () => {
    const r = getRenderer('nemotron3_ultra_disable_thinking', tok);
    expect(tok.decode(r.buildGenerationPrompt([{ role: 'user', content: 'hi' }]).toInts())).toMatch(
      /<\|im_start\|>assistant\n<think><\/think>$/,
    );
    expect(r.disablesThinking).toBe(true);
    expect(() => r.buildSupervisedExample(conversation.slice(0, 3))).toThrow(/disables thinking/);
  });
});

describe('nemotron3 supervised weights and parsing', () => {
  const r = make();
  it('the prefilled <think>\\n is prompt; the reasoning, answer and <|im_end|> are trained', () => {
    const msgs: Message[] = [
      { role: 'user', content: 'What is 6*7?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Six sevens.' },
          { type: 'text', text: '42' },
        ],
      },
    ];
    const { modelInput, weights } = r.buildSupervisedExample(msgs);
    const prompt = r.buildGenerationPrompt(msgs.slice(0, 1)).toInts();
    const ids = modelInput.toInts();
    expect(ids.slice(0, prompt.length)).toEqual(prompt);
    expect(weights.slice(0, prompt.length).every((w) => w === 0)).toBe(true);
    const action = ids.filter((_, i) => weights[i] === 1);
    expect(tok.decode(action)).toBe('Six sevens.\n</think>\n42<|im_end|>');
    expect(r.parseResponse(action)).toEqual({ message: msgs[1], termination: 'stop_sequence' });
  });
  it('round-trips reasoning, text and XML tool calls', () => {
    for (const format of ['nano', 'ultra'] as const) {
      const rr = make({ format });
      const msg: Message = {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Need weather.' },
          { type: 'text', text: 'Checking.' },
        ],
        tool_calls: [call('get_weather', '{"city": "Paris", "days": [1, 2]}'), call('get_time', '{"tz": "UTC"}')],
      };
      const { modelInput, weights } = rr.buildSupervisedExample([{ role: 'user', content: 'Weather?' }, msg]);
      const action = modelInput.toInts().filter((_, i) => weights[i] === 1);
      expect(rr.parseResponse(action), format).toEqual({ message: msg, termination: 'stop_sequence' });
    }
  });
  it('flags malformed, invalid and unterminated tool calls, and a missing stop token', () => {
    const bad = r.parseResponse(enc('x</think>\n<tool_call>\n{"name": "f"}\n</tool_call>\n<|im_end|>'));
    expect(bad.message.unparsed_tool_calls?.[0]?.error).toMatch(/malformed tool call/);
    expect(bad.message.content).toEqual([{ type: 'thinking', thinking: 'x' }]);
    const stray = r.parseResponse(enc('<tool_call>\n<function=f>\nhello\n</function>\n</tool_call><|im_end|>'));
    expect(stray.message.unparsed_tool_calls?.[0]?.error).toMatch(/text after the last <parameter> block/);
    const cut = r.parseResponse(enc('ok\n<tool_call>\n<function=f>\n<parameter=a>\n1<|im_end|>'));
    expect(cut.message.unparsed_tool_calls?.[0]?.error).toMatch(/unterminated tool block/);
    const open = r.parseResponse(enc('still thinking'));
    expect(open).toEqual({ message: { role: 'assistant', content: 'still thinking' }, termination: 'malformed' });
    expect(() => r.parseResponse(enc('a<|im_end|>b<|im_end|>'))).toThrow(/at most one stop token/);
  });
  it('rejects tool-call arguments that are not a JSON object, and image parts', () => {
    const msgs: Message[] = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: '', tool_calls: [call('f', '[1]')] },
    ];
    expect(() => r.buildSupervisedExample(msgs)).toThrow(/not a JSON object/);
    expect(() =>
      r.buildGenerationPrompt([{ role: 'user', content: [{ type: 'image', image: 'x' }] } as Message]),
    ).toThrow(/text only/);
  });
  it('scalar arguments and extra schema keys are written with Python str(), as transformers renders the template', () => {
    const text = tok.decode(
      r
        .buildSupervisedExample([
          ...r.createConversationPrefixWithTools([
            { name: 'f', description: '', parameters: { type: 'object', properties: {}, additionalProperties: false } },
          ]),
          { role: 'user', content: 'go' },
          { role: 'assistant', content: '', tool_calls: [call('f', '{"on": true, "none": null, "x": 1.5}')] },
        ])
        .modelInput.toInts(),
    );
    expect(text).toContain(
      '<name>f</name>\n<description></description>\n<parameters>\n<additionalProperties>False</additionalProperties>\n</parameters>',
    );
    expect(text).toContain(
      '<parameter=on>\nTrue\n</parameter>\n<parameter=none>\nNone\n</parameter>\n<parameter=x>\n1.5\n</parameter>',
    );
  });
  it('the tool declaration is the template text; its <tool_call> tags are tokens, quoted ones are text', () => {
    const [sys] = r.createConversationPrefixWithTools(TOOLS, 'S');
    expect(`<|im_start|>system\n${sys!.content as string}<|im_end|>\n`).toBe(
      renderTemplate(tok, { messages: [{ role: 'system', content: 'S' }], tools: toHfTools(TOOLS) }),
    );
    const id = tok.convertTokenToId('<tool_call>')!;
    const declared = r.buildGenerationPrompt([sys!, { role: 'user', content: 'hi' }]).toInts();
    expect(declared.filter((t) => t === id)).toHaveLength(2);
    const quoted = r.buildGenerationPrompt([{ role: 'user', content: sys!.content as string }]).toInts();
    expect(quoted.filter((t) => t === id)).toHaveLength(0);
  });
  it('an answer quoting <think> tags stays text; the template would look for reasoning in it', () => {
    const msgs: Message[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a <think>x</think> b' },
      { role: 'user', content: 'q2' },
    ];
    const text = tok.decode(r.buildGenerationPrompt(msgs).toInts());
    expect(text).toContain('<|im_start|>assistant\n<think></think>a <think>x</think> b<|im_end|>');
    expect(renderTemplate(tok, { messages: msgs, add_generation_prompt: true })).toContain(
      '<|im_start|>assistant\n<think></think> b<|im_end|>',
    );
    const think = tok.convertTokenToId('<think>')!;
    expect(
      r
        .buildGenerationPrompt(msgs)
        .toInts()
        .filter((t) => t === think),
    ).toHaveLength(2);
  });
});
