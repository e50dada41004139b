/**
 * Image classification with a vision-language model (upstream `recipes/vlm_classifier`): the prompt (an image and a
 * question), the trained answer (`The subject in this photo is: <label>`), the prediction read back from a sampled
 * answer (the text after its last colon, trimmed, lower-cased) and an accuracy evaluator that samples greedily from
 * the current weights over a held-out split.
 */
import type { LoadedImage, Message } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import type { EvalContext, SamplingClientEvaluator } from '@cookbook/training';

/** The question asked about every image. */
export const CLASSIFICATION_QUESTION = 'What is the name of the subject in this photo?';

/** One labelled image. */
export interface LabelledImage {
  image: string | Uint8Array | LoadedImage;
  /** The class name, as the model should write it. */
  label: string;
}

/** A class name as the answers write it: `_`, `.` and `-` become spaces, lower case (upstream `get_class_name`). */
export function className(label: string): string {
  return label.replace(/[_.-]/g, ' ').toLowerCase();
}

/** The conversation of one example: the user's image and question, and (with `withAnswer`) the labelled answer. */
export function classificationMessages(example: LabelledImage, withAnswer = true): Message[] {
  const user: Message = {
    role: 'user',
    content: [
      { type: 'image', image: example.image },
      { type: 'text', text: CLASSIFICATION_QUESTION },
    ],
  };
  if (!withAnswer) return [user];
  return [user, { role: 'assistant', content: `The subject in this photo is: ${className(example.label)}\n` }];
}

/** The class a sampled answer names: the text after its last colon, trimmed and lower-cased. */
export function parseClassPrediction(text: string): string {
  const at = text.lastIndexOf(':');
  return (at >= 0 ? text.slice(at + 1) : text).trim().toLowerCase();
}

/** Options of {@link ImageClassificationEvaluator}. */
export interface ImageClassificationEvaluatorOptions {
  examples: readonly LabelledImage[];
  renderer: Renderer;
  /** Metric prefix. Default `test`. */
  name?: string;
  /** Tokens sampled per answer. Default 32. */
  maxTokens?: number;
}

/** Accuracy (`<name>/accuracy`) of greedy answers over held-out labelled images. */
export class ImageClassificationEvaluator implements SamplingClientEvaluator {
  readonly kind = 'sampling_client' as const;
  readonly name: string;
  private readonly options: ImageClassificationEvaluatorOptions;

  constructor(options: ImageClassificationEvaluatorOptions) {
    this.options = options;
    this.name = options.name ?? 'test';
  }

  async evaluate(client: SamplingClientLike, _ctx: EvalContext): Promise<Record<string, number>> {
    const { examples, renderer } = this.options;
    if (examples.length === 0) return {};
    const stop = renderer.getStopSequences();
    const correct = await Promise.all(
      examples.map(async (ex) => {
        const prompt = renderer.buildGenerationPrompt(classificationMessages(ex, false));
        const res = await client.sample({
          prompt,
          numSamples: 1,
          samplingParams: { maxTokens: this.options.maxTokens ?? 32, temperature: 0, stop },
        });
        const tokens = res.sequences[0]?.tokens ?? [];
        const { message } = renderer.parseResponse(tokens);
        const text =
          typeof message.content === 'string'
            ? message.content
            : message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
        return parseClassPrediction(text) === className(ex.label) ? 1 : 0;
      }),
    );
    const sum = correct.reduce<number>((a, b) => a + b, 0);
    return { [`${this.name}/accuracy`]: sum / examples.length };
  }
}
