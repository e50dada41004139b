import { tensorToNumbers } from '@cookbook/core';
import { getRenderer, TrainOnWhat } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { conversationToDatum } from './conversation-to-datum.js';

const qwen = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
const llama = getRenderer('llama3', getTokenizer('local/llama3-tiny'));
const conv = [
  { role: 'user', content: 'What is 2+2?' },
  { role: 'assistant', content: '4' },
];

// "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n4<|im_end|>"
const QWEN_TOKENS = [
  151644, 872, 198, 3838, 374, 220, 17, 10, 17, 30, 151645, 198, 151644, 77091, 198, 151667, 271, 151668, 271, 19,
  151645,
];

describe('conversationToDatum', () => {
  it('shifts by one and normalises weights to mean (golden, Qwen3)', () => {
    const d = conversationToDatum(conv, qwen, null);
    const input = d.modelInput.toInts();
    const targets = tensorToNumbers(d.lossFnInputs.target_tokens!);
    const weights = tensorToNumbers(d.lossFnInputs.weights!);
    expect(input).toEqual(QWEN_TOKENS.slice(0, -1));
    expect(targets).toEqual(QWEN_TOKENS.slice(1));
    expect(d.lossFnInputs.target_tokens!.dtype).toBe('int64');
    expect(d.lossFnInputs.weights!.dtype).toBe('float32');
    // The assistant output "<think>\n\n</think>\n\n4<|im_end|>" is trained: 6 targets, each 1/6.
    const trained = weights.map((w, i) => (w > 0 ? i : -1)).filter((i) => i >= 0);
    expect(trained).toEqual([14, 15, 16, 17, 18, 19]);
    for (const i of trained) expect(weights[i]).toBeCloseTo(1 / 6, 6);
    expect(weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    expect(qwen.tokenizer.decode(trained.map((i) => targets[i]!))).toBe('<think>\n\n</think>\n\n4<|im_end|>');
  });

  it("keeps 0/1 weights with reduction 'none' and cuts to maxLength from the end", () => {
    const d = conversationToDatum(conv, qwen, 18, TrainOnWhat.ALL_ASSISTANT_MESSAGES, 'none');
    expect(d.modelInput.toInts()).toEqual(QWEN_TOKENS.slice(0, 17));
    expect(tensorToNumbers(d.lossFnInputs.target_tokens!)).toEqual(QWEN_TOKENS.slice(1, 18));
    expect(tensorToNumbers(d.lossFnInputs.weights!)).toEqual([...new Array(14).fill(0), 1, 1, 1]);
  });

  it('trains only the last assistant message when asked (multi-turn, Llama 3)', () => {
    const multi = [
      { role: 'user', content: 'Capital of France?' },
      { role: 'assistant', content: 'Paris' },
      { role: 'user', content: 'Of Italy?' },
      { role: 'assistant', content: 'Rome' },
    ];
    const all = conversationToDatum(multi, llama, null, TrainOnWhat.ALL_ASSISTANT_MESSAGES, 'none');
    const last = conversationToDatum(multi, llama, null, TrainOnWhat.LAST_ASSISTANT_MESSAGE, 'none');
    const decodeTrained = (d: typeof all) => {
      const t = tensorToNumbers(d.lossFnInputs.target_tokens!);
      const w = tensorToNumbers(d.lossFnInputs.weights!);
      return llama.tokenizer.decode(t.filter((_, i) => w[i]! > 0));
    };
    expect(decodeTrained(all)).toBe('Paris<|eot_id|>Rome<|eot_id|>');
    expect(decodeTrained(last)).toBe('Rome<|eot_id|>');
    expect(llama.tokenizer.decode(all.modelInput.toInts())).toMatch(/^<\|begin_of_text\|><\|start_header_id\|>user/);
  });
});
