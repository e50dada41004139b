import type { ModelInput } from '@cookbook/core';
import { encodePng } from '@cookbook/images';
import { resolveModelSetup } from '@cookbook/renderers';
import type { SampleArgs, SamplingClientLike } from '@cookbook/tinker-client';
import { describe, expect, it } from 'vitest';
import {
  CLASSIFICATION_QUESTION,
  classificationMessages,
  className,
  ImageClassificationEvaluator,
  parseClassPrediction,
} from './image-classification.js';

// Qwen3-VL's tokenizer offline (the Qwen3 vocabulary) and its recommended renderer, qwen3_vl_instruct.
const { tokenizer: tok, renderer, rendererName } = resolveModelSetup({ modelName: 'Qwen/Qwen3-VL-30B-A3B-Instruct' });
const png = (v: number) => encodePng(8, 8, new Uint8Array(8 * 8 * 3).fill(v));

describe('image classification pieces', () => {
  it('class names and predictions as upstream writes and reads them', () => {
    expect(rendererName).toBe('qwen3_vl_instruct');
    expect(className('Red_Circle')).toBe('red circle');
    expect(className('great-white.shark')).toBe('great white shark');
    expect(parseClassPrediction('The subject in this photo is: Red Circle\n')).toBe('red circle');
    expect(parseClassPrediction('blue square')).toBe('blue square');
  });

  it('the example: image then question, answered with the class', () => {
    const [user, answer] = classificationMessages({ image: png(1), label: 'red_circle' });
    expect(user!.content).toEqual([
      { type: 'image', image: png(1) },
      { type: 'text', text: CLASSIFICATION_QUESTION },
    ]);
    expect(answer).toEqual({ role: 'assistant', content: 'The subject in this photo is: red circle\n' });
    expect(classificationMessages({ image: png(1), label: 'x' }, false)).toHaveLength(1);
  });
});

describe('ImageClassificationEvaluator', () => {
  it('samples greedily from an image prompt per example and reports accuracy', async () => {
    const examples = [
      { image: png(10), label: 'red circle' },
      { image: png(20), label: 'blue square' },
      { image: png(30), label: 'green triangle' },
    ];
    const prompts: ModelInput[] = [];
    const answers = [
      'The subject in this photo is: red circle',
      'The subject in this photo is: red circle',
      'green triangle',
    ];
    const client: SamplingClientLike = {
      sample: async (args: SampleArgs) => {
        prompts.push(args.prompt);
        expect(args.samplingParams?.temperature).toBe(0);
        const k = prompts.length - 1;
        return {
          sequences: [
            { tokens: [...tok.encode(answers[k]!), tok.convertTokenToId('<|im_end|>')!], stopReason: 'stop' },
          ],
        };
      },
    } as unknown as SamplingClientLike;
    const ev = new ImageClassificationEvaluator({ examples, renderer });
    const metrics = await ev.evaluate(client, { step: 0, logPath: '.' });
    expect(metrics).toEqual({ 'test/accuracy': 2 / 3 });
    expect(prompts).toHaveLength(3);
    for (const p of prompts) expect(p.chunks.filter((c) => c.type === 'image')).toHaveLength(1);
  });
});
