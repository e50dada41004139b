import type { Message } from '@cookbook/core';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { PLAIN_CASES, THINKING_CASES, TOOLS, toHfMessages } from './__fixtures__/conversations.js';
import { randomConversation, rng } from './__fixtures__/random.js';
import { controlIds, structureTokens } from './__fixtures__/structure.js';
import { renderTemplate, templateMessages } from './__fixtures__/template.js';
import { DeepSeekV3Renderer } from './deepseek-v3-renderer.js';

// DeepSeek-V3.1's tokenizer (the model catalog's: V3's vocabulary with `<think>` / `</think>` as added tokens).
const tok = getTokenizer('deepseek-ai/DeepSeek-V3.1');
const plain = new DeepSeekV3Renderer(tok);
const thinking = new DeepSeekV3Renderer(tok, { thinking: true });
const BOS = '<｜begin▁of▁sentence｜>';
const A = '<｜Assistant｜>';

/**
 * The npm package ships the DeepSeek-V3 template; the renderers implement V3.1, which differs from V3 by the
 * documented `</think>` marker: after every assistant header in non-thinking mode, and after historical assistant
 * headers plus a `<think>` prefill in thinking mode. Everything else must match the V3 template token for token.
 */
function v3Template(messages: Message[]): string {
  return renderTemplate(tok, {
    ...templateMessages({ name: '', messages }),
    add_generation_prompt: true,
    bos_token: BOS,
  });
}

describe('DeepSeek-V3.1 tokenizer', () => {
  it('has <think> and </think> as single tokens, so a prefilled <think> is a token prefix of the example', () => {
    expect(tok.encode('<think>')).toEqual([128798]);
    expect(tok.encode('</think>\n\nanswer')[0]).toBe(128799);
    const msgs: Message[] = [
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: '\nplan\n' },
          { type: 'text', text: 'Hello' },
        ],
      },
    ];
    const prompt = thinking.buildGenerationPrompt(msgs.slice(0, 1)).toInts();
    const example = thinking.buildSupervisedExample(msgs).modelInput.toInts();
    expect(example.slice(0, prompt.length)).toEqual(prompt);
  });
});

describe('deepseekv3 parity with the shipped V3 template (+ the documented V3.1 </think> marker)', () => {
  for (const c of [...PLAIN_CASES, ...THINKING_CASES]) {
    it(`deepseekv3: ${c.name}`, () => {
      const expected = v3Template(c.messages).replaceAll(A, `${A}</think>`);
      expect(tok.decode(plain.buildGenerationPrompt(c.messages).toInts())).toBe(expected);
      expect(plain.buildGenerationPrompt(c.messages).toInts()).toEqual(tok.encode(expected));
    });
    it(`deepseekv3_thinking: ${c.name}`, () => {
      const v3 = v3Template(c.messages);
      const head = v3.slice(0, v3.lastIndexOf(A)).replaceAll(A, `${A}</think>`);
      const expected = `${head}${A}<think>`;
      expect(tok.decode(thinking.buildGenerationPrompt(c.messages).toInts())).toBe(expected);
      expect(thinking.buildGenerationPrompt(c.messages).toInts()).toEqual(tok.encode(expected));
    });
  }
});

/** The V3 template's generation prompt, turned into the renderer's V3.1 form (see {@link v3Template}). */
function v31Prompt(messages: Message[], thinkingMode: boolean): string {
  const v3 = v3Template(messages);
  if (!thinkingMode) return v3.replaceAll(A, `${A}</think>`);
  return `${v3.slice(0, v3.lastIndexOf(A)).replaceAll(A, `${A}</think>`)}${A}<think>`;
}

/** Random conversations (unicode, whitespace edges, 1–3 turns, optional system prompt), half with reasoning. */
function randomReasonedConversation(next: () => number, quoted: readonly string[]): Message[] {
  return randomConversation(next, quoted, true).map((m) =>
    m.role === 'assistant' && next() < 0.5
      ? {
          ...m,
          content: [
            { type: 'thinking', thinking: `${m.content as string} because` },
            { type: 'text', text: m.content as string },
          ],
        }
      : m,
  );
}

/**
 * Generated battery against the shipped V3 template run by @huggingface/jinja. Where V3 and the renderer's V3.1
 * agree — system prompt, user and assistant turns, reasoning dropped from history, tool declarations in the system
 * prompt — the tokens are equal once the documented `</think>` marker is applied. Not compared, because V3.1 changed
 * them (see the renderer's doc comment): tool calls (V3: `function<｜tool▁sep｜>name` + a fenced JSON block, only for
 * content-less messages) and tool outputs (V3: an outer `<｜tool▁outputs▁begin｜>` wrapper).
 */
describe('deepseekv3: random conversations match the shipped V3 template (+ the V3.1 marker)', () => {
  it('60 generated conversations, generation prompt (both modes) and supervised example, token for token', () => {
    const next = rng(31);
    for (let i = 0; i < 60; i++) {
      const msgs = randomReasonedConversation(next, []);
      const prompt = msgs.slice(0, -1);
      const label = JSON.stringify(msgs);
      expect(plain.buildGenerationPrompt(prompt).toInts(), label).toEqual(tok.encode(v31Prompt(prompt, false)));
      expect(thinking.buildGenerationPrompt(prompt).toInts(), label).toEqual(tok.encode(v31Prompt(prompt, true)));
      const full = renderTemplate(tok, { messages: toHfMessages(msgs), bos_token: BOS }).replaceAll(A, `${A}</think>`);
      expect(plain.buildSupervisedExample(msgs).modelInput.toInts(), label).toEqual(tok.encode(full));
    }
  });

  it('tool declarations in the system prompt, token for token (their format line keeps its control tokens)', () => {
    const next = rng(37);
    for (let i = 0; i < 10; i++) {
      const tools = TOOLS.slice(0, 1 + (i % TOOLS.length));
      const msgs = [
        ...plain.createConversationPrefixWithTools(tools, i % 3 === 0 ? '' : 'Be brief.'),
        ...randomConversation(next, [], false).slice(0, -1),
      ];
      const ids = plain.buildGenerationPrompt(msgs).toInts();
      expect(ids).toEqual(tok.encode(v31Prompt(msgs, false)));
      expect(ids).toContain(tok.convertTokenToId('<｜tool▁calls▁begin｜>'));
    }
  });

  it('quoted control strings: the same text as the template, but only the structure tokens', () => {
    const next = rng(41);
    const quoted = structureTokens(plain);
    expect(quoted).toEqual(expect.arrayContaining([BOS, '<｜User｜>', A, '<｜end▁of▁sentence｜>']));
    // The V3.1 marker goes after the template's own `<｜Assistant｜>` only: quoted strings are masked meanwhile.
    const mask = (t: string) => quoted.reduce((acc, q, k) => acc.split(q).join(`\uE000${k}\uE001`), t);
    const unmask = (t: string) => t.replace(/\uE000(\d+)\uE001/g, (_, k: string) => quoted[Number(k)]!);
    const masked = (msgs: Message[]): Message[] =>
      msgs.map((m) => ({
        ...m,
        content:
          typeof m.content === 'string'
            ? mask(m.content)
            : m.content.map((p) => (p.type === 'text' ? { ...p, text: mask(p.text) } : p)),
      }));
    let differs = 0;
    for (let i = 0; i < 30; i++) {
      const prompt = randomReasonedConversation(next, quoted).slice(0, -1);
      const clean = prompt.map((m) => ({
        ...m,
        content:
          typeof m.content === 'string'
            ? 'x'
            : m.content.map((p) => (p.type === 'text' ? { ...p, text: 'x' } : { ...p, thinking: 'x' })),
      }));
      for (const [r, mode] of [
        [plain, false],
        [thinking, true],
      ] as const) {
        const ids = r.buildGenerationPrompt(prompt).toInts();
        expect(tok.decode(ids)).toBe(unmask(v31Prompt(masked(prompt), mode)));
        expect(controlIds(tok, ids)).toEqual(controlIds(tok, r.buildGenerationPrompt(clean).toInts()));
        // The deliberate difference: the template + tokenizer turn every quoted string into its token.
        if (controlIds(tok, tok.encode(v3Template(prompt))).length > controlIds(tok, ids).length) differs++;
      }
    }
    expect(differs).toBeGreaterThan(0);
  });
});

describe('deepseekv3 formats', () => {
  it('renders V3.1 tool calls and tool outputs', () => {
    const msgs: Message[] = [
      ...plain.createConversationPrefixWithTools(TOOLS, 'Sys.'),
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
      },
      { role: 'tool', content: 'sunny' },
    ];
    const text = tok.decode(plain.buildGenerationPrompt(msgs).toInts());
    expect(text).toContain(
      `<｜User｜>Weather?${A}</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜><｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜>`,
    );
    expect(text.endsWith('<｜tool▁output▁end｜>')).toBe(true); // no header after a tool result
    expect(
      text.startsWith(
        `${BOS}Sys.\n\n## Tools\nYou have access to the following tools:\n\n### get_weather\nDescription: Get the current weather in a city.\n\nParameters: {"type": "object"`,
      ),
    ).toBe(true);
  });
  it("the tool declaration's format line has control tokens; the same text quoted by a user stays text", () => {
    const [sys] = plain.createConversationPrefixWithTools(TOOLS, 'Sys.');
    const begin = tok.convertTokenToId('<｜tool▁calls▁begin｜>')!;
    const declared = plain.buildGenerationPrompt([sys!, { role: 'user', content: 'hi' }]).toInts();
    expect(declared.filter((t) => t === begin)).toHaveLength(1);
    const quoted = plain.buildGenerationPrompt([{ role: 'user', content: sys!.content as string }]).toInts();
    expect(quoted.filter((t) => t === begin)).toHaveLength(0);
    // A system message whose text merely quotes the format line (not at its end) stays text too.
    const inner = plain.buildGenerationPrompt([{ role: 'system', content: `${sys!.content as string} Thanks.` }]);
    expect(inner.toInts().filter((t) => t === begin)).toHaveLength(0);
  });
  it('refuses a later system message unless systemRoleAsUser', () => {
    const msgs: Message[] = [
      { role: 'user', content: 'a' },
      { role: 'system', content: 'b' },
    ];
    expect(() => plain.buildGenerationPrompt(msgs)).toThrow(/index 0/);
    const asUser = new DeepSeekV3Renderer(tok, { systemRoleAsUser: true });
    expect(tok.decode(asUser.buildGenerationPrompt(msgs).toInts())).toBe(`${BOS}<｜User｜>a<｜User｜>b${A}</think>`);
  });
  it('round-trips a tool call and thinking', () => {
    const msg: Message = {
      role: 'assistant',
      content: 'Calling.',
      tool_calls: [{ type: 'function', function: { name: 'get_time', arguments: '{"tz": "UTC"}' } }],
    };
    const msgs: Message[] = [{ role: 'user', content: 'time?' }, msg];
    const { modelInput, weights } = plain.buildSupervisedExample(msgs);
    const action = modelInput.toInts().filter((_, i) => weights[i] === 1);
    expect(plain.parseResponse(action)).toEqual({ message: msg, termination: 'stop_sequence' });

    const reasoned: Message = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Think.' },
        { type: 'text', text: 'Answer.' },
      ],
    };
    const ex = thinking.buildSupervisedExample([{ role: 'user', content: 'q' }, reasoned]);
    const prompt = thinking.buildGenerationPrompt([{ role: 'user', content: 'q' }]).toInts();
    const ids = ex.modelInput.toInts();
    expect(ids.slice(0, prompt.length)).toEqual(prompt); // <think> is prompt, not trained
    expect(thinking.parseResponse(ids.slice(prompt.length)).message).toEqual(reasoned);
  });
  it('flags invalid tool-call JSON', () => {
    const eos = tok.convertTokenToId('<｜end▁of▁sentence｜>')!;
    const r = plain.parseResponse([
      ...tok.encode(
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{bad<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
      ),
      eos,
    ]);
    expect(r.message.unparsed_tool_calls?.[0]?.error).toMatch(/Invalid JSON/);
  });
});
