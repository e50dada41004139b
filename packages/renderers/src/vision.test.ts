/**
 * Image parts in the vision renderers. Parity: the official template (Qwen3.8-27B's and Kimi K2.5's, committed
 * fixtures) renders an image as its placeholder with one pad token; the renderer's chunks must be exactly those
 * template tokens with the pad replaced by the image chunk, whose `expected_tokens` is the family's rule count.
 */

import { type ImageChunk, type Message, ModelInput, type ModelInputChunk } from '@cookbook/core';
import { encodePng, imageTokenCount, KIMI_K25_IMAGE_RULE, QWEN3_VL_IMAGE_RULE } from '@cookbook/images';
import { getTokenizer, type Tokenizer } from '@cookbook/tokenizers';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { kimiTemplate, kimiTestTokenizer } from './__fixtures__/kimi/test-tokenizer.js';
import { renderTemplate } from './__fixtures__/template.js';
import { qwen38TestTokenizer } from './__fixtures__/test-tokenizers.js';
import { getRenderer } from './registry.js';
import { TrainOnWhat } from './renderer.js';
import { VISION_RENDERER_NAMES } from './vision.js';

function png(width: number, height: number): Uint8Array {
  const px = new Uint8Array(width * height * 3).fill(90);
  return encodePng(width, height, px);
}
const wide = png(300, 100);
const small = png(20, 30);
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

const conversation: Message[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: '  Compare ' },
      { type: 'image', image: wide },
      { type: 'text', text: 'with' },
      { type: 'image', image: small },
      { type: 'text', text: ' please. ' },
    ],
  },
  { role: 'assistant', content: 'They differ.' },
];

/** The template's tokens with the k-th pad replaced by the k-th image chunk. */
function expectedChunks(tokens: number[], pad: number, images: ImageChunk[]): ModelInputChunk[] {
  let input = ModelInput.empty();
  let k = 0;
  for (const t of tokens) input = t === pad ? input.appendChunk(images[k++]!) : input.appendInt(t);
  expect(k).toBe(images.length);
  return [...input.chunks];
}

const asHf = (messages: Message[]) =>
  messages.map((m) => ({
    role: m.role,
    content:
      typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'image' ? { type: 'image' } : p)),
  }));

function qwenImages(): ImageChunk[] {
  return [
    { type: 'image', data: b64(wide), format: 'png', expected_tokens: imageTokenCount(300, 100, QWEN3_VL_IMAGE_RULE) },
    { type: 'image', data: b64(small), format: 'png', expected_tokens: imageTokenCount(20, 30, QWEN3_VL_IMAGE_RULE) },
  ];
}

describe('Qwen3.8 template parity with images (qwen3_8_* / qwen3_5*)', () => {
  const tok = qwen38TestTokenizer();
  for (const name of ['qwen3_8_medium_reasoning', 'qwen3_8_disable_thinking']) {
    it(`${name}: generation prompt = template tokens with the pad replaced by each image chunk`, () => {
      const r = getRenderer(name, tok);
      const prompt = [conversation[0]!];
      const text = renderTemplate(tok, {
        messages: asHf(prompt),
        add_generation_prompt: true,
        reasoning_effort: 'medium',
        ...(name.endsWith('disable_thinking') ? { enable_thinking: false } : {}),
      });
      const expected = expectedChunks(tok.encode(text), tok.convertTokenToId('<|image_pad|>')!, qwenImages());
      expect(r.buildGenerationPrompt(prompt).chunks).toEqual(expected);
    });
  }
  it('counts image positions in the length and never trains on them', () => {
    const r = getRenderer('qwen3_8_medium_reasoning', tok);
    const [a, b] = qwenImages();
    // Both are below 65536 pixels and scale up: 300x100 → 448x160 → 14·5; 20x30 → 224x320 → 7·10.
    expect([a!.expected_tokens, b!.expected_tokens]).toEqual([70, 70]);
    for (const mode of [TrainOnWhat.LAST_ASSISTANT_MESSAGE, TrainOnWhat.ALL_MESSAGES, TrainOnWhat.ALL_TOKENS]) {
      const { modelInput, weights } = r.buildSupervisedExample(conversation, mode);
      expect(weights).toHaveLength(modelInput.length);
      let at = 0;
      for (const c of modelInput.chunks) {
        const n = c.type === 'encoded_text' ? c.tokens.length : c.expected_tokens!;
        if (c.type === 'image') expect(weights.slice(at, at + n).every((w) => w === 0)).toBe(true);
        at += n;
      }
    }
    // The default mode trains exactly the produced turn: the prompt (images included) weighs 0.
    const { modelInput, weights } = r.buildSupervisedExample(conversation);
    const prompt = r.buildGenerationPrompt([conversation[0]!]);
    expect(weights.slice(0, prompt.length).every((w) => w === 0)).toBe(true);
    expect(weights.slice(prompt.length).every((w) => w === 1)).toBe(true);
    expect(modelInput.length).toBeGreaterThan(prompt.length);
  });
  it('refuses images in system and assistant messages', () => {
    const r = getRenderer('qwen3_5', tok);
    expect(() => r.buildGenerationPrompt([{ role: 'system', content: [{ type: 'image', image: small }] }])).toThrow(
      /messages\[0\] is a system message with an image part; qwen3_5 renderers take images in user and tool messages only/,
    );
  });
  it('names the message and part of a bad image', () => {
    const r = getRenderer('qwen3_5', tok);
    const bad: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'and this?' },
          { type: 'image', image: new Uint8Array([1, 2, 3, 4]) },
        ],
      },
    ];
    expect(() => r.buildGenerationPrompt(bad)).toThrow(/messages\[2\]\.content\[1\]: unknown image format/);
  });
});

describe('Qwen3-VL with images (qwen3_vl, qwen3_vl_instruct)', () => {
  const tok = getTokenizer('Qwen/Qwen3-8B');
  for (const name of ['qwen3_vl', 'qwen3_vl_instruct']) {
    it(`${name}: the text rendering of the placeholder string, with each pad replaced by the image chunk`, () => {
      const r = getRenderer(name, tok);
      const placeholder = '<|vision_start|><|image_pad|><|vision_end|>';
      const asText = `<|im_start|>user\n  Compare ${placeholder}with${placeholder} please. <|im_end|>\n<|im_start|>assistant\n${name === 'qwen3_vl' ? '<think>\n' : ''}`;
      const expected = expectedChunks(tok.encode(asText), tok.convertTokenToId('<|image_pad|>')!, qwenImages());
      expect(r.buildGenerationPrompt([conversation[0]!]).chunks).toEqual(expected);
    });
  }
  it('images in a tool result', () => {
    const r = getRenderer('qwen3_vl_instruct', tok);
    const msgs: Message[] = [
      { role: 'user', content: 'Take a picture.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ type: 'function', function: { name: 'camera', arguments: '{}' } }],
      },
      { role: 'tool', content: [{ type: 'image', image: small }] },
    ];
    const chunks = r.buildGenerationPrompt(msgs).chunks;
    const image = chunks.find((c) => c.type === 'image');
    expect(image).toEqual(qwenImages()[1]);
    const text = chunks.map((c) => (c.type === 'encoded_text' ? tok.decode(c.tokens) : '[IMG]')).join('');
    expect(text).toContain(
      '<|im_start|>user\n<tool_response>\n<|vision_start|>[IMG]<|vision_end|>\n</tool_response><|im_end|>',
    );
  });
});

describe('Kimi K2.5 / K2.6 template parity with images', () => {
  const tok: Tokenizer = kimiTestTokenizer();
  const template = new Template(kimiTemplate('kimi-k2.5'));
  for (const name of ['kimi_k25', 'kimi_k26']) {
    it(`${name}: template tokens with <|media_pad|> replaced by each image chunk`, () => {
      const r = getRenderer(name, tok);
      const prompt = [conversation[0]!];
      const text = template.render({ messages: asHf(prompt), add_generation_prompt: true });
      const images: ImageChunk[] = [
        {
          type: 'image',
          data: b64(wide),
          format: 'png',
          expected_tokens: imageTokenCount(300, 100, KIMI_K25_IMAGE_RULE),
        },
        {
          type: 'image',
          data: b64(small),
          format: 'png',
          expected_tokens: imageTokenCount(20, 30, KIMI_K25_IMAGE_RULE),
        },
      ];
      expect(images.map((i) => i.expected_tokens)).toEqual([44, 2]); // 300→308 = 11·28, 100→112 = 4·28; 20x30 → 1·2
      expect(r.buildGenerationPrompt(prompt).chunks).toEqual(
        expectedChunks(tok.encode(text), tok.convertTokenToId('<|media_pad|>')!, images),
      );
    });
  }
  it('kimi_k2 (text only) refuses an image naming the part and the vision renderers', () => {
    expect(() => getRenderer('kimi_k2', tok).buildGenerationPrompt([conversation[0]!])).toThrow(
      /messages\[0\]\.content\[1\] is an image, but kimi_k2 \(Kimi-K2-Thinking\) renders text only.*qwen3_vl, .*kimi_k26/,
    );
  });
});

describe('text-only renderers refuse image parts, naming the renderers that take them', () => {
  const tok = getTokenizer('Qwen/Qwen3-8B');
  for (const name of ['qwen3', 'qwen3_instruct', 'role_colon']) {
    it(name, () => {
      expect(() => getRenderer(name, tok).buildGenerationPrompt([conversation[0]!])).toThrow(
        new RegExp(`renders? text only.*${VISION_RENDERER_NAMES.join(', ')}`),
      );
    });
  }
});
