/**
 * A sampling evaluator for the SFT loop that writes an HTML transcript of the model's answers (upstream leaves this
 * to custom evaluators). Held-out NLL is `@cookbook/training`'s `NLLEvaluator`.
 */
import { join } from 'node:path';
import type { Message } from '@cookbook/core';
import { ConversationFormatter, Transcript } from '@cookbook/logging';
import type { Renderer } from '@cookbook/renderers';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import type { EvalContext, SamplingClientEvaluator } from '@cookbook/training';

/** Options of {@link SampleTranscriptEvaluator}. */
export interface SampleTranscriptOptions {
  /** Conversations to answer (the model continues each with an assistant message). */
  prompts: readonly Message[][];
  renderer: Renderer;
  /** Maximum sampled tokens per answer. Default 64. */
  maxTokens?: number;
  /** Default 0 (greedy), so transcripts of two runs compare. */
  temperature?: number;
  /** Sampling seed. Default 0. */
  seed?: number;
  /** Metric prefix and transcript file prefix. Default `samples`. */
  name?: string;
  /** Optional reference answers shown beside the samples (same order as `prompts`). */
  references?: readonly (string | undefined)[];
}

/**
 * Samples an answer to each prompt from the current weights and writes `transcripts/<name>_step_NNNNNN.html` (or
 * where the loop says, `ctx.transcriptPath`).
 * Reports `<name>/mean_tokens` and, with references, `<name>/exact_match` (fraction of answers equal to the
 * reference after trimming).
 */
export class SampleTranscriptEvaluator implements SamplingClientEvaluator {
  readonly kind = 'sampling_client' as const;
  readonly name: string;
  private readonly options: SampleTranscriptOptions;

  constructor(options: SampleTranscriptOptions) {
    this.options = options;
    this.name = options.name ?? 'samples';
  }

  async evaluate(client: SamplingClientLike, ctx: EvalContext): Promise<Record<string, number>> {
    const { prompts, renderer } = this.options;
    const stop = renderer.getStopSequences();
    const results = await Promise.all(
      prompts.map((messages) =>
        client.sample({
          prompt: renderer.buildGenerationPrompt(messages),
          numSamples: 1,
          samplingParams: {
            maxTokens: this.options.maxTokens ?? 64,
            temperature: this.options.temperature ?? 0,
            seed: this.options.seed ?? 0,
            stop,
          },
        }),
      ),
    );
    const transcript = new Transcript(`${this.name} after ${ctx.step} steps`);
    let tokens = 0;
    let matches = 0;
    const refs = this.options.references;
    for (const [i, res] of results.entries()) {
      const seq = res.sequences[0];
      const tokensOut = seq?.tokens ?? [];
      tokens += tokensOut.length;
      const reply = renderer.parseResponse(tokensOut).message;
      const section = transcript.section(`Prompt ${i + 1}`);
      section.add(new ConversationFormatter([...prompts[i]!, reply]));
      const ref = refs?.[i];
      if (ref !== undefined) {
        const text =
          typeof reply.content === 'string'
            ? reply.content
            : reply.content.map((p) => ('text' in p ? p.text : '')).join('');
        if (text.trim() === ref.trim()) matches++;
        section.text(`reference: ${ref}`);
      }
    }
    await transcript.write(
      ctx.transcriptPath ??
        join(ctx.logPath, 'transcripts', `${this.name}_step_${String(ctx.step).padStart(6, '0')}.html`),
    );
    const metrics: Record<string, number> = {
      [`${this.name}/mean_tokens`]: prompts.length > 0 ? tokens / prompts.length : 0,
    };
    if (refs !== undefined && prompts.length > 0) metrics[`${this.name}/exact_match`] = matches / prompts.length;
    return metrics;
  }
}
