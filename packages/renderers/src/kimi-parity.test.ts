/**
 * Kimi renderers against the official chat templates (run by @huggingface/jinja), on the shared cases: the generation
 * prompt token for token and supervised examples. The 500 generated conversations per name (quoting control strings
 * too) are the conformance suite's Kimi rows (`template-conformance.test.ts`). The test tokenizer is synthetic (see __fixtures__/kimi), so parity
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
  toHfMessages,
  toHfTools,
} from './__fixtures__/conversations.js';
import { kimiK2Source, kimiK25Source, kimiK26Source, sortKeys } from './__fixtures__/kimi/templates.js';
import { kimiTestTokenizer } from './__fixtures__/kimi/test-tokenizer.js';
import type { KimiRenderer } from './kimi-renderer.js';
import { kimiToolDeclaration } from './kimi-tool-declaration.js';
import { getRenderer } from './registry.js';

const tok = kimiTestTokenizer();

type Family = 'k2' | 'k25' | 'k26';
const templates: Record<Family, Template> = {
  k2: new Template(kimiK2Source()),
  k25: new Template(kimiK25Source()),
  k26: new Template(kimiK26Source()),
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
