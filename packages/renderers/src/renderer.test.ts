import type { Message } from '@cookbook/core';
import { getTokenizer, type Tokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { kimiTestTokenizer } from './__fixtures__/kimi/test-tokenizer.js';
import { nemotronTestTokenizer } from './__fixtures__/nemotron.js';
import { getRenderer } from './registry.js';
import { type Renderer, TrainOnWhat } from './renderer.js';

// Consistency properties (upstream renderers_test (b)) for every built-in renderer.
const SETUPS: [string, string | (() => Tokenizer)][] = [
  ['role_colon', 'meta-llama/Llama-3.2-1B'],
  ['llama3', 'meta-llama/Llama-3.1-8B-Instruct'],
  ['qwen3', 'Qwen/Qwen3-8B'],
  ['qwen3_disable_thinking', 'Qwen/Qwen3-8B'],
  ['qwen3_instruct', 'Qwen/Qwen3-4B-Instruct-2507'],
  ['deepseekv3', 'deepseek-ai/DeepSeek-V3.1'],
  ['deepseekv3_thinking', 'deepseek-ai/DeepSeek-V3.1'],
  ['gpt_oss_no_sysprompt', 'openai/gpt-oss-20b'],
  ['gpt_oss_low_reasoning', 'openai/gpt-oss-20b'],
  ['gpt_oss_medium_reasoning', 'openai/gpt-oss-20b'],
  ['gpt_oss_high_reasoning', 'openai/gpt-oss-20b'],
  ['kimi_k2', kimiTestTokenizer],
  ['kimi_k25', kimiTestTokenizer],
  ['kimi_k25_disable_thinking', kimiTestTokenizer],
  ['kimi_k26', kimiTestTokenizer],
  ['kimi_k26_disable_thinking', kimiTestTokenizer],
  ['kimi_k26_preserve_thinking', kimiTestTokenizer],
  ['nemotron3', nemotronTestTokenizer],
  ['nemotron3_low_thinking', nemotronTestTokenizer],
  ['nemotron3_disable_thinking', nemotronTestTokenizer],
  ['nemotron3_preserve_thinking', nemotronTestTokenizer],
  ['nemotron3_ultra', nemotronTestTokenizer],
  ['nemotron3_ultra_disable_thinking', nemotronTestTokenizer],
  ['nemotron3_ultra_medium_thinking', nemotronTestTokenizer],
  ['nemotron3_ultra_preserve_thinking', nemotronTestTokenizer],
  // Qwen3.5 / 3.8: the Qwen3 vocabulary stands in (no offline Qwen3.5 tokenizer package); Qwen3-VL uses it.
  ['qwen3_5', 'Qwen/Qwen3-8B'],
  ['qwen3_5_disable_thinking', 'Qwen/Qwen3-8B'],
  ['qwen3_8_xhigh_reasoning', 'Qwen/Qwen3-8B'],
  ['qwen3_8_medium_reasoning', 'Qwen/Qwen3-8B'],
  ['qwen3_8_low_reasoning', 'Qwen/Qwen3-8B'],
  ['qwen3_8_disable_thinking', 'Qwen/Qwen3-8B'],
  ['qwen3_vl', 'Qwen/Qwen3-8B'],
  ['qwen3_vl_instruct', 'Qwen/Qwen3-8B'],
];

const CONVERSATION: Message[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'Name a fruit.' },
  { role: 'assistant', content: 'Apple.' },
  { role: 'user', content: 'Another, in Japanese?' },
  { role: 'assistant', content: 'りんご — no, バナナ!' },
];

function runs(weights: number[]): string {
  return weights
    .map((w) => (w > 0 ? '1' : '0'))
    .join('')
    .replace(/0+/g, '0')
    .replace(/1+/g, '1');
}

describe.each(SETUPS)('%s consistency', (name, model) => {
  const tokenizer = typeof model === 'string' ? getTokenizer(model) : model();
  const renderer: Renderer = getRenderer(name, tokenizer, { currentDate: '2025-01-01' });
  const noThinkFrame = name !== 'qwen3';
  // Nemotron 3's thinking prompts end with a `<think>\n` prefill that a turn without reasoning does not start with:
  // its empty `<think></think>` (the template's, untrained, as upstream renders it) follows the prompt instead.
  const nemotronThinking = name.startsWith('nemotron3') && !name.includes('disable');
  const prefill = nemotronThinking ? tokenizer.encode('<think>\n') : [];

  it('LAST_ASSISTANT_MESSAGE weights are 0…0 1…1 and the observation is the generation prompt of the prefix', () => {
    const { modelInput, weights } = renderer.buildSupervisedExample(CONVERSATION);
    const ids = modelInput.toInts();
    expect(weights).toHaveLength(ids.length);
    expect(runs(weights)).toBe('01');
    const firstTrained = weights.indexOf(1);
    const prompt = renderer.buildGenerationPrompt(CONVERSATION.slice(0, -1)).toInts();
    if (prefill.length > 0) {
      expect(ids.slice(0, firstTrained)).toEqual([
        ...prompt.slice(0, -prefill.length),
        ...tokenizer.encode('<think></think>'),
      ]);
    } else if (noThinkFrame) expect(ids.slice(0, firstTrained)).toEqual(prompt);
    else expect(ids.slice(0, prompt.length)).toEqual(prompt); // qwen3 frames the produced turn with an empty think
  });

  it('parseResponse of the trained tokens gives back the last message', () => {
    const { modelInput, weights } = renderer.buildSupervisedExample(CONVERSATION);
    const action = modelInput.toInts().filter((_, i) => weights[i] === 1);
    const parsed = renderer.parseResponse(action);
    expect(parsed.termination).toBe('stop_sequence');
    expect(parsed.message).toEqual({ role: 'assistant', content: 'りんご — no, バナナ!' });
  });

  it('every TrainOnWhat value produces consistent weights', () => {
    const base = renderer.buildSupervisedExample(CONVERSATION, TrainOnWhat.ALL_TOKENS);
    for (const mode of Object.values(TrainOnWhat)) {
      const msgs =
        mode === TrainOnWhat.CUSTOMIZED ? CONVERSATION.map((m, i) => ({ ...m, trainable: i === 1 })) : CONVERSATION;
      const { modelInput, weights } = renderer.buildSupervisedExample(msgs, mode);
      expect(modelInput.toInts()).toEqual(base.modelInput.toInts());
      expect(weights).toHaveLength(modelInput.length);
      const total = weights.reduce((a, b) => a + b, 0);
      expect(total).toBeGreaterThan(0);
    }
    const all = renderer.buildSupervisedExample(CONVERSATION, TrainOnWhat.ALL_ASSISTANT_MESSAGES).weights;
    expect(runs(all)).toBe('0101');
  });

  it('prefill is appended after the generation suffix', () => {
    const a = renderer.buildGenerationPrompt(CONVERSATION.slice(0, 2)).toInts();
    const b = renderer.buildGenerationPrompt(CONVERSATION.slice(0, 2), { prefill: 'Sure' }).toInts();
    expect(b.slice(0, a.length)).toEqual(a);
    expect(renderer.tokenizer.decode(b.slice(a.length))).toBe('Sure');
  });

  it.runIf(renderer.hasExtensionProperty)('hasExtensionProperty: the next prompt extends the trained turn', () => {
    // With thinking too, where the renderer takes it: a renderer that claims the property keeps it in history.
    const takesThinking = !['role_colon', 'llama3'].includes(name) && !renderer.disablesThinking;
    const thinking: Message[] = CONVERSATION.map((m, i) =>
      i === 2
        ? {
            ...m,
            content: [
              { type: 'thinking', thinking: 'A common one.' },
              { type: 'text', text: 'Apple.' },
            ],
          }
        : m,
    );
    for (const conv of takesThinking ? [CONVERSATION, thinking] : [CONVERSATION]) {
      const { modelInput, weights } = renderer.buildSupervisedExample(conv.slice(0, 3));
      const obs2 = renderer.buildGenerationPrompt(conv.slice(0, 4)).toInts();
      const ids = modelInput.toInts();
      const end = weights.lastIndexOf(1) + 1;
      expect(end).toBeGreaterThan(0);
      expect(obs2.slice(0, end)).toEqual(ids.slice(0, end));
    }
  });
});

describe('LAST_ASSISTANT_TURN', () => {
  it('trains every assistant message after the last user message', () => {
    const r = getRenderer('qwen3_instruct', getTokenizer('Qwen/Qwen3-8B'));
    const msgs: Message[] = [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ type: 'function', function: { name: 'w', arguments: '{}' } }],
      },
      { role: 'tool', content: 'sunny' },
      { role: 'assistant', content: 'Sunny.' },
    ];
    expect(runs(r.buildSupervisedExample(msgs, TrainOnWhat.LAST_ASSISTANT_TURN).weights)).toBe('0101');
    expect(runs(r.buildSupervisedExample(msgs, TrainOnWhat.LAST_ASSISTANT_MESSAGE).weights)).toBe('01');
  });
});
