/**
 * Kimi renderers against the official chat templates (run by @huggingface/jinja), on the shared cases and on generated
 * batteries: the generation prompt token for token, supervised examples, and conversations that quote control strings
 * (same text, only the template's structure tokens). The test tokenizer is synthetic (see __fixtures__/kimi), so parity
 * is at the text level plus the tokens of that vocabulary. Sources of the templates: __fixtures__/kimi/SOURCES.md.
 */

import type { Message, ToolSpec } from '@cookbook/core';
import { Template } from '@huggingface/jinja';
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
import { kimiTemplate, kimiTestTokenizer } from './__fixtures__/kimi/test-tokenizer.js';
import { quoteMasker, randomText, rng } from './__fixtures__/random.js';
import { controlIds, structureTokens } from './__fixtures__/structure.js';
import type { KimiRenderer } from './kimi-renderer.js';
import { kimiToolDeclaration } from './kimi-tool-declaration.js';
import { getRenderer } from './registry.js';

const tok = kimiTestTokenizer();

/** K2-Thinking's copy, with the one documented change of the pinned Hub revision (compact tool JSON). */
function k2Source(): string {
  const text = kimiTemplate('kimi-k2-thinking');
  const from = '{{ tools | tojson() }}';
  expect(text.split(from)).toHaveLength(2);
  return text.replace(from, "{{ tools | tojson(separators=(',', ':')) }}");
}

/** K2.5's template with K2.6's documented `preserve_thinking`: the history split is emptied. */
function k26Source(): string {
  const text = kimiTemplate('kimi-k2.5');
  const at = '{%- set hist_msgs = messages[:ns.last_non_tool_call_assistant_msg+1] -%}';
  expect(text.split(at)).toHaveLength(2);
  return text.replace(
    at,
    `{%- if preserve_thinking -%}{%- set ns.last_non_tool_call_assistant_msg = -1 -%}{%- endif -%}\n${at}`,
  );
}

type Family = 'k2' | 'k25' | 'k26';
const templates: Record<Family, Template> = {
  k2: new Template(k2Source()),
  k25: new Template(kimiTemplate('kimi-k2.5')),
  k26: new Template(k26Source()),
};

/** [renderer name, template, template variables]. */
const VARIANTS: [string, Family, Record<string, unknown>][] = [
  ['kimi_k2', 'k2', {}],
  ['kimi_k25', 'k25', {}],
  ['kimi_k25_disable_thinking', 'k25', { thinking: false }],
  ['kimi_k26', 'k26', {}],
  ['kimi_k26_disable_thinking', 'k26', { thinking: false, preserve_thinking: false }],
  ['kimi_k26_preserve_thinking', 'k26', { thinking: true, preserve_thinking: true }],
];

/** Tool-call ids and result ids filled in as the renderer writes them (the template prints missing ones empty). */
function withIds(messages: readonly Message[]): Message[] {
  let calls: string[] = [];
  let k = 0;
  return messages.map((m) => {
    if (m.role === 'assistant' && (m.tool_calls ?? []).length > 0) {
      const tool_calls = m.tool_calls!.map((c, j) => ({ ...c, id: c.id ?? `functions.${c.function.name}:${j}` }));
      calls = tool_calls.map((c) => c.id);
      k = 0;
      return { ...m, tool_calls };
    }
    if (m.role === 'tool') return { ...m, tool_call_id: m.tool_call_id ?? calls[k++] ?? '' };
    calls = [];
    return m;
  });
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, x]) => [k, sortKeys(x)]),
  );
}

/** The template's text for a case, with the inputs Kimi's `apply_chat_template` passes. */
function templateText(family: Family, vars: Record<string, unknown>, c: Case, generation: boolean): string {
  const msgs = c.systemPrompt ? [{ role: 'system', content: c.systemPrompt }, ...c.messages] : c.messages;
  const tools = c.tools && c.tools.length > 0 ? toHfTools(c.tools) : undefined;
  return templates[family].render({
    messages: toHfMessages(withIds(msgs)),
    add_generation_prompt: generation,
    ...vars,
    // K2's tokenizer sorts every key; K2.5's encodes the TypeScript declaration (`tools_ts_str`).
    ...(tools === undefined
      ? {}
      : family === 'k2'
        ? { tools: sortKeys(tools) }
        : { tools, tools_ts_str: kimiToolDeclaration(c.tools as ToolSpec[]) }),
  });
}

function rendererInput(r: KimiRenderer, c: Case): Message[] {
  const prefix = c.tools ? r.createConversationPrefixWithTools(c.tools, c.systemPrompt) : [];
  const system: Message[] = !c.tools && c.systemPrompt ? [{ role: 'system', content: c.systemPrompt }] : [];
  return [...prefix, ...system, ...withIds(c.messages)];
}

const CASES: Case[] = [...PLAIN_CASES, ...THINKING_CASES, ...TOOL_CASES, ...THINKING_TOOL_CASES];

describe('kimi renderers equal the official templates: generation prompt', () => {
  for (const [name, family, vars] of VARIANTS) {
    const r = getRenderer(name, tok) as KimiRenderer;
    for (const c of CASES) {
      it(`${name}: ${c.name}`, () => {
        const want = templateText(family, vars, c, true);
        const got = r.buildGenerationPrompt(rendererInput(r, c)).toInts();
        expect(tok.decode(got)).toBe(want);
        expect(got).toEqual(tok.encode(want));
      });
    }
  }
});

const reasoned = (thinking: string, text: string): Message => ({
  role: 'assistant',
  content: [
    { type: 'thinking', thinking },
    { type: 'text', text },
  ],
});

/** Conversations that end with the assistant message a supervised example trains. */
const TRAINED: Case[] = [
  {
    name: 'plain answer',
    messages: [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
    ],
  },
  { ...THINKING_CASES[1]!, messages: [...THINKING_CASES[1]!.messages, reasoned('C is third.', 'C')] },
  { ...TOOL_CASES[2]!, messages: [...TOOL_CASES[2]!.messages, reasoned('It is clear.', 'Clear, 21°C.')] },
  { ...THINKING_TOOL_CASES[0]!, messages: [...THINKING_TOOL_CASES[0]!.messages, reasoned('Sunny.', 'It is sunny.')] },
];

describe("kimi supervised examples: the template's generation prompt, then the trained message as sampled", () => {
  for (const [name, family, vars] of VARIANTS) {
    const r = getRenderer(name, tok) as KimiRenderer;
    for (const c of TRAINED) {
      const last = c.messages.at(-1)!;
      const reasoning = typeof last.content === 'string' ? '' : (last.content[0] as { thinking: string }).thinking;
      const answer = typeof last.content === 'string' ? last.content : (last.content[1] as { text: string }).text;
      it(`${name}: ${c.name}`, () => {
        if (r.disablesThinking && reasoning !== '') {
          // A thinking-off renderer refuses to train a reasoned turn (it would never be sampled after its prompt).
          expect(() => r.buildSupervisedExample(rendererInput(r, c))).toThrow(/disables thinking/);
          return;
        }
        const prompt = templateText(family, vars, { ...c, messages: c.messages.slice(0, -1) }, true);
        // What the model writes after that prompt: its think block (minus what the prompt prefilled), answer, end.
        let completion = `<think>${reasoning}</think>${answer}<|im_end|>`;
        for (const prefill of ['<think></think>', '<think>']) {
          if (prompt.endsWith(prefill) && completion.startsWith(prefill)) {
            completion = completion.slice(prefill.length);
            break;
          }
        }
        const { modelInput, weights } = r.buildSupervisedExample(rendererInput(r, c));
        expect(tok.decode(modelInput.toInts())).toBe(prompt + completion);
        expect(modelInput.toInts()).toEqual(tok.encode(prompt + completion));
        const n = tok.encode(prompt).length;
        expect(weights.slice(0, n).every((w) => w === 0)).toBe(true);
        expect(weights.slice(n).every((w) => w === 1)).toBe(true);
        // Where the template's history rule keeps the final answer's reasoning, that is the template's own text.
        if (family === 'k26' && vars.preserve_thinking === true) {
          expect(prompt + completion).toBe(templateText(family, vars, c, false));
        }
      });
    }
  }
});

/** A random conversation with system prompt, tools, reasoning, tool calls (with or without ids) and results. */
function randomCase(next: () => number, quoted: readonly string[] = []): Case {
  const text = () => randomText(next, quoted);
  const tools = next() < 0.6 ? TOOLS.slice(0, 1 + Math.floor(next() * TOOLS.length)) : undefined;
  const messages: Message[] = [];
  const turns = 1 + Math.floor(next() * 3);
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'user', content: text() });
    if (t === turns - 1 && next() < 0.4) break;
    for (let step = 0; step < 2; step++) {
      const thinking = next() < 0.6 ? [{ type: 'thinking' as const, thinking: text() }] : [];
      const call = tools !== undefined && step === 0 && next() < 0.6;
      const answer = call && next() < 0.5 ? [] : [{ type: 'text' as const, text: text() }];
      const content = thinking.length === 0 && answer.length === 1 ? answer[0]!.text : [...thinking, ...answer];
      if (!call) {
        messages.push({ role: 'assistant', content });
        break;
      }
      const n = 1 + Math.floor(next() * 2);
      const tool_calls = Array.from({ length: n }, (_, j) => ({
        type: 'function' as const,
        ...(next() < 0.5 ? { id: `call_${t}_${j}` } : {}),
        function: { name: tools![j % tools!.length]!.name, arguments: JSON.stringify({ q: text() }) },
      }));
      messages.push({ role: 'assistant', content, tool_calls });
      for (const c of tool_calls) messages.push({ role: 'tool', name: c.function.name, content: text() });
    }
  }
  return { name: 'random', messages, ...(tools ? { tools } : {}), ...(next() < 0.4 ? { systemPrompt: text() } : {}) };
}

describe('kimi renderers on generated conversations', () => {
  for (const [name, family, vars] of VARIANTS) {
    it(`${name}: 50 random conversations, generation prompt token for token`, () => {
      const r = getRenderer(name, tok) as KimiRenderer;
      const next = rng(101);
      for (let i = 0; i < 50; i++) {
        const c = randomCase(next);
        const want = templateText(family, vars, c, true);
        expect(r.buildGenerationPrompt(rendererInput(r, c)).toInts(), JSON.stringify(c)).toEqual(tok.encode(want));
      }
    });

    it(`${name}: 30 conversations quoting control strings give the template's text and only its structure tokens`, () => {
      const r = getRenderer(name, tok) as KimiRenderer;
      const next = rng(103);
      const quoted = [...structureTokens(r), '<|media_pad|>', '[EOS]', '<|reserved_token_900|>'];
      expect(quoted).toEqual(expect.arrayContaining(['<|im_end|>', '<think>', '<|tool_call_begin|>', '<|im_middle|>']));
      const { mask, unmask, maskMessages } = quoteMasker(quoted);
      let differs = 0;
      for (let i = 0; i < 30; i++) {
        const c = randomCase(next, quoted);
        const masked: Case = {
          ...c,
          messages: maskMessages(c.messages),
          ...(c.systemPrompt === undefined ? {} : { systemPrompt: mask(c.systemPrompt) }),
        };
        const text = templateText(family, vars, masked, true);
        const got = r.buildGenerationPrompt(rendererInput(r, c)).toInts();
        expect(tok.decode(got), JSON.stringify(c)).toBe(unmask(text));
        expect(controlIds(tok, got), JSON.stringify(c)).toEqual(controlIds(tok, tok.encode(text)));
        if (controlIds(tok, tok.encode(unmask(text))).length > controlIds(tok, got).length) differs++;
      }
      // The deliberate difference: the template + tokenizer would turn the quoted strings into tokens.
      expect(differs).toBeGreaterThan(10);
    });
  }
});
