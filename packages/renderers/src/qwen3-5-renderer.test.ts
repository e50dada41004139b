/**
 * Qwen3.5 / Qwen3.8 against the official Qwen3.8 chat template (Qwen/Qwen3.8-27B, a fixture) run by
 * @huggingface/jinja. The tokens use the Qwen3 vocabulary as a stand-in (no offline Qwen3.5 tokenizer package): the
 * same control tokens, so the text and every control token are checked; the ids are Qwen3's. `qwen3_5` is checked
 * against the same template where the Qwen3.5/3.6 templates render alike (preserve_thinking=false, effort medium:
 * no effort sentence, non-empty system prompts, string or integer arguments).
 */
import type { Message } from '@cookbook/core';
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
import { quoteMasker, randomText, rng } from './__fixtures__/random.js';
import { controlIds, structureTokens } from './__fixtures__/structure.js';
import { rendererMessages, renderTemplate } from './__fixtures__/template.js';
import { qwen38TestTokenizer } from './__fixtures__/test-tokenizers.js';
import { QWEN38_REASONING_INSTRUCTIONS, Qwen35Renderer } from './qwen3-5-renderer.js';
import { getRenderer } from './registry.js';
import type { Renderer } from './renderer.js';

const tok = qwen38TestTokenizer();
const enc = (s: string) => tok.encode(s);

/** Template input: tool-call arguments as objects (the template iterates them), tools in `tools`. */
function templateInput(c: Case): Record<string, unknown> {
  const msgs: Message[] = c.systemPrompt ? [{ role: 'system', content: c.systemPrompt }, ...c.messages] : c.messages;
  const messages = toHfMessages(msgs).map((m) =>
    m.tool_calls
      ? {
          ...m,
          tool_calls: m.tool_calls.map((tc) => ({
            ...tc,
            function: { name: tc.function.name, arguments: JSON.parse(tc.function.arguments) as unknown },
          })),
        }
      : m,
  );
  return { messages, ...(c.tools ? { tools: toHfTools(c.tools) } : {}) };
}

/** [renderer name, template variables] pairs that must render alike. */
const VARIANTS: [string, Record<string, unknown>][] = [
  ['qwen3_8_xhigh_reasoning', {}],
  ['qwen3_8_medium_reasoning', { reasoning_effort: 'medium' }],
  ['qwen3_8_low_reasoning', { reasoning_effort: 'low' }],
  ['qwen3_8_disable_thinking', { enable_thinking: false }],
  ['qwen3_5', { reasoning_effort: 'medium', preserve_thinking: false }],
  ['qwen3_5_disable_thinking', { enable_thinking: false, preserve_thinking: false }],
];

const ALL: Case[] = [...PLAIN_CASES, ...THINKING_CASES, ...TOOL_CASES, ...THINKING_TOOL_CASES];
const prompt = (r: Renderer, c: Case) =>
  r.buildGenerationPrompt(rendererMessages(c, (t, s) => r.createConversationPrefixWithTools(t, s))).toInts();

describe('qwen3_5 / qwen3_8 parity with the official template (generation prompt)', () => {
  for (const [name, vars] of VARIANTS) {
    const r = getRenderer(name, tok);
    for (const c of ALL) {
      it(`${name}: ${c.name}`, () => {
        const expected = renderTemplate(tok, { ...templateInput(c), add_generation_prompt: true, ...vars });
        const got = prompt(r, c);
        expect(tok.decode(got)).toBe(expected);
        expect(got).toEqual(enc(expected));
      });
    }
  }
});

describe('qwen3_8 (and qwen3_5 with argumentStyle json): every JSON value kind as a tool argument', () => {
  const c: Case = {
    name: 'typed arguments',
    tools: TOOLS,
    messages: [
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              arguments: JSON.stringify({
                city: 'Oslo',
                days: 3,
                metric: true,
                note: null,
                tags: ['a', 'b'],
                opts: { x: 1 },
              }),
            },
          },
        ],
      },
      { role: 'tool', content: 'cold' },
    ],
  };
  for (const [name, vars, options] of [
    ['qwen3_8_xhigh_reasoning', {}, {}],
    ['qwen3_8_disable_thinking', { enable_thinking: false }, {}],
    ['qwen3_5', { reasoning_effort: 'medium', preserve_thinking: false }, { argumentStyle: 'json' }],
  ] as const) {
    it(name, () => {
      const r = getRenderer(name, tok, options);
      const expected = renderTemplate(tok, { ...templateInput(c), add_generation_prompt: true, ...vars });
      expect(expected).toContain('<parameter=metric>\ntrue\n</parameter>');
      expect(prompt(r, c)).toEqual(enc(expected));
    });
  }
});

const LAST_TURNS: Case[] = [
  {
    name: 'reasoned answer',
    messages: [
      { role: 'system', content: 'Be exact.' },
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
    name: 'answer without reasoning, after an earlier reasoned turn',
    messages: [
      { role: 'system', content: 'Be exact.' },
      { role: 'user', content: 'a?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Letter a.' },
          { type: 'text', text: 'A' },
        ],
      },
      { role: 'user', content: 'b?' },
      { role: 'assistant', content: 'B' },
    ],
  },
  {
    name: 'reasoned tool call, result, answer',
    tools: TOOLS,
    systemPrompt: 'Use tools.',
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'Call the tool.' }],
        tool_calls: [
          { type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris", "days": 2}' } },
        ],
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

describe('qwen3_5 / qwen3_8 supervised examples', () => {
  for (const [name, vars] of VARIANTS.filter(([n]) => !n.includes('disable'))) {
    const r = getRenderer(name, tok);
    for (const c of LAST_TURNS) {
      it(`${name}: ${c.name} — the template's text; the prompt is a token prefix; the completion parses back`, () => {
        const msgs = rendererMessages(c, (t, s) => r.createConversationPrefixWithTools(t, s));
        const { modelInput, weights } = r.buildSupervisedExample(msgs);
        const ids = modelInput.toInts();
        // The template closes every message with "<|im_end|>\n"; the example ends at <|im_end|>.
        const expected = renderTemplate(tok, { ...templateInput(c), ...vars }).replace(/\n$/, '');
        expect(tok.decode(ids)).toBe(expected);
        expect(controlIds(tok, ids)).toEqual(controlIds(tok, enc(expected)));
        const prefix = r.buildGenerationPrompt(msgs.slice(0, -1)).toInts();
        expect(ids.slice(0, prefix.length)).toEqual(prefix);
        expect(weights.slice(0, prefix.length).every((w) => w === 0)).toBe(true);
        expect(weights.slice(prefix.length).every((w) => w === 1)).toBe(true);
        const parsed = r.parseResponse(ids.slice(prefix.length));
        expect(parsed).toEqual({ message: msgs.at(-1), termination: 'stop_sequence' });
      });
    }
  }

  it('disable_thinking: the empty think block is prompt; a reasoned trained turn is refused', () => {
    for (const name of ['qwen3_5_disable_thinking', 'qwen3_8_disable_thinking']) {
      const r = getRenderer(name, tok);
      const msgs: Message[] = [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
      ];
      const { modelInput, weights } = r.buildSupervisedExample(msgs);
      const trained = modelInput.toInts().filter((_, i) => weights[i] === 1);
      expect(tok.decode(trained)).toBe('Hello!<|im_end|>');
      expect(r.parseResponse(trained).message).toEqual({ role: 'assistant', content: 'Hello!' });
      expect(() => r.buildSupervisedExample(LAST_TURNS[0]!.messages)).toThrow(/disables thinking/);
    }
  });
});

describe('qwen3_5 / qwen3_8 format facts', () => {
  const last = (r: Renderer, msgs: Message[]) => tok.decode(r.buildGenerationPrompt(msgs).toInts());
  const history = THINKING_CASES[0]!.messages;

  it('qwen3_8 keeps earlier reasoning (preserve_thinking defaults to true); qwen3_5 drops it before the last query', () => {
    expect(last(getRenderer('qwen3_8_medium_reasoning', tok), history)).toContain(
      '<|im_start|>assistant\n<think>\n17*3 = 51.\n</think>\n\n51<|im_end|>',
    );
    expect(last(getRenderer('qwen3_5', tok), history)).toContain('<|im_start|>assistant\n51<|im_end|>');
    expect(last(getRenderer('qwen3_5', tok, { preserveThinking: true }), history)).toContain('17*3 = 51.');
    expect(last(getRenderer('qwen3_8_low_reasoning', tok, { stripThinkingFromHistory: true }), history)).toContain(
      '<|im_start|>assistant\n51<|im_end|>',
    );
  });

  it('the effort sentence opens the system message, or is one; medium and disabled thinking add none', () => {
    const user: Message[] = [{ role: 'user', content: 'hi' }];
    expect(last(getRenderer('qwen3_8_xhigh_reasoning', tok), user)).toBe(
      `<|im_start|>system\n${QWEN38_REASONING_INSTRUCTIONS.xhigh}<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n` +
        '<|im_start|>assistant\n<think>\n',
    );
    const sys: Message[] = [{ role: 'system', content: '  Be brief. ' }, ...user];
    expect(last(getRenderer('qwen3_8_low_reasoning', tok), sys)).toMatch(
      /^<\|im_start\|>system\nReasoning effort is set to low\. .*\n\nBe brief\.<\|im_end\|>/,
    );
    expect(last(getRenderer('qwen3_8_medium_reasoning', tok), user)).toBe(
      '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n',
    );
    expect(last(getRenderer('qwen3_8_disable_thinking', tok), sys)).toBe(
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n' +
        '<think>\n\n</think>\n\n',
    );
  });

  it('an empty system message: nothing for Qwen3.8 (as its template), an empty block for Qwen3.5', () => {
    const msgs: Message[] = [
      { role: 'system', content: ' ' },
      { role: 'user', content: 'hi' },
    ];
    const q38 = getRenderer('qwen3_8_medium_reasoning', tok);
    const text = last(q38, msgs);
    expect(text).toBe(renderTemplate(tok, { messages: msgs, add_generation_prompt: true, reasoning_effort: 'medium' }));
    expect(text.startsWith('<|im_start|>user')).toBe(true);
    expect(last(getRenderer('qwen3_5', tok), msgs).startsWith('<|im_start|>system\n<|im_end|>\n<|im_start|>user')).toBe(
      true,
    );
  });

  it('argument values: Qwen3.5 prints scalars with Python str(), Qwen3.8 with tojson; containers are JSON', () => {
    const args = '{"s": "x y", "b": true, "n": null, "f": 1.0, "i": 12345678901234567890, "o": {"k": [1, 2.50]}}';
    const msgs: Message[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'f', arguments: args } }] },
      { role: 'user', content: 'again' },
    ];
    const params = (name: string) =>
      [...last(getRenderer(name, tok), msgs).matchAll(/<parameter=(\w)>\n([\s\S]*?)\n<\/parameter>/g)].map((m) => m[2]);
    // Facts from Python: str(True) == 'True', str(None) == 'None', str(1.0) == '1.0', json.dumps(2.50) == '2.5'.
    expect(params('qwen3_5')).toEqual(['x y', 'True', 'None', '1.0', '12345678901234567890', '{"k": [1, 2.5]}']);
    expect(params('qwen3_8_medium_reasoning')).toEqual([
      'x y',
      'true',
      'null',
      '1.0',
      '12345678901234567890',
      '{"k": [1, 2.5]}',
    ]);
    const bad = [
      { ...msgs[1]!, tool_calls: [{ type: 'function' as const, function: { name: 'f', arguments: '[1]' } }] },
    ];
    expect(() => getRenderer('qwen3_5', tok).buildGenerationPrompt([msgs[0]!, ...bad])).toThrow(/needs a JSON object/);
  });

  it('refuses a system message after the first, and names a bad image part', () => {
    const r = getRenderer('qwen3_5', tok);
    expect(() =>
      r.buildGenerationPrompt([
        { role: 'user', content: 'a' },
        { role: 'system', content: 'late' },
      ]),
    ).toThrow(/system message must be the first message \(found one at index 1\)/);
    expect(() =>
      r.buildGenerationPrompt([{ role: 'user', content: [{ type: 'image', image: 'data:image/png;base64,AA==' }] }]),
    ).toThrow(/messages\[0\]\.content\[0\]: unknown image format/);
  });
});

describe('qwen3_5 / qwen3_8 parsing', () => {
  const r = new Qwen35Renderer(tok, { family: 'qwen3_8' });
  const parse = (s: string) => r.parseResponse(enc(s));

  it('restores the prefilled <think>, splits reasoning, text and XML tool calls', () => {
    const out = parse(
      'Plan.\n</think>\n\nChecking.\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nNew York\n</parameter>\n' +
        '<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_time>\n' +
        '<parameter=tz>\n"UTC"\n</parameter>\n</function>\n</tool_call><|im_end|>',
    );
    expect(out).toEqual({
      termination: 'stop_sequence',
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Plan.' },
          { type: 'text', text: 'Checking.' },
        ],
        tool_calls: [
          { type: 'function', function: { name: 'get_weather', arguments: '{"city": "New York", "days": 3}' } },
          { type: 'function', function: { name: 'get_time', arguments: '{"tz": "UTC"}' } },
        ],
      },
    });
  });

  it('flags malformed and unterminated tool calls; no stop token is malformed; two are an error', () => {
    const bad = parse('<tool_call>\n<function=f>\nloose text\n</function>\n</tool_call><|im_end|>');
    expect(bad.message.unparsed_tool_calls?.[0]?.error).toMatch(/Unexpected text/);
    const open = parse('ok\n\n<tool_call>\n<function=f>\n<parameter=a>\n1<|im_end|>');
    expect(open.message.unparsed_tool_calls?.[0]?.error).toMatch(/unterminated tool block/);
    expect(parse('cut <tool_call>\n<function=f').termination).toBe('malformed');
    expect(() => parse('a<|im_end|>b<|im_end|>')).toThrow(/at most one stop token/);
  });
});

describe('qwen3_5 / qwen3_8 random conversations quoting their tags', () => {
  it('give the template text with exactly the template structure tokens', () => {
    const next = rng(31);
    for (const [name, vars] of VARIANTS) {
      const r = getRenderer(name, tok);
      const quoted = structureTokens(r);
      expect(quoted).toEqual(expect.arrayContaining(['<think>', '</tool_call>', '<tool_response>', '<|im_end|>']));
      const { mask, unmask, maskMessages } = quoteMasker(quoted);
      for (let i = 0; i < 12; i++) {
        const text = () => randomText(next, i % 2 === 0 ? [] : quoted).trim() || 'x';
        const msgs: Message[] = [{ role: 'system', content: text() }];
        for (let t = 0; t < 1 + Math.floor(next() * 3); t++) {
          // (A user message that starts and ends with quoted <tool_response> tags is not a query, for both.)
          msgs.push({ role: 'user', content: `q ${text()}` });
          const thinking = next() < 0.5 ? [{ type: 'thinking' as const, thinking: text() }] : [];
          const call = next() < 0.5;
          msgs.push({
            role: 'assistant',
            content: [...thinking, { type: 'text', text: text() }],
            ...(call
              ? {
                  tool_calls: [
                    {
                      type: 'function',
                      function: { name: 'get_weather', arguments: JSON.stringify({ city: text() }) },
                    },
                  ],
                }
              : {}),
          });
          if (call) msgs.push({ role: 'tool', content: text() });
        }
        msgs.push({ role: 'user', content: `q ${text()}` });
        const masked = maskMessages(msgs).map((m, k) =>
          m.tool_calls
            ? {
                ...m,
                tool_calls: m.tool_calls.map((c) => ({
                  ...c,
                  function: { ...c.function, arguments: mask(msgs[k]!.tool_calls![0]!.function.arguments) },
                })),
              }
            : m,
        );
        const want = renderTemplate(tok, {
          ...templateInput({ name: 'random', messages: masked }),
          add_generation_prompt: true,
          ...vars,
        });
        const got = r.buildGenerationPrompt(msgs).toInts();
        expect(tok.decode(got), `${name} ${JSON.stringify(msgs)}`).toBe(unmask(want));
        expect(controlIds(tok, got)).toEqual(controlIds(tok, enc(want)));
      }
    }
  });
});
