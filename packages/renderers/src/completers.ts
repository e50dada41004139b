/**
 * Completers backed by a sampling client (upstream `completers.py`: TinkerTokenCompleter, TinkerMessageCompleter).
 * The client is typed by `@cookbook/tinker-client`'s `SamplingClientLike`, so the real sampler and test doubles fit.
 */
import type {
  CompleteOptions,
  Message,
  MessageCompleter,
  ModelInput,
  StopCondition,
  TokenCompleter,
  TokensWithLogprobs,
} from '@cookbook/core';
import { RendererError } from '@cookbook/core';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import type { Renderer } from './renderer.js';

/** What the completers need from a sampling client: `sample`, from the one client definition. */
export type CompleterSamplingClient = Pick<SamplingClientLike, 'sample'>;

/** Options of {@link TinkerTokenCompleter}. */
export interface TinkerTokenCompleterOptions {
  samplingClient: CompleterSamplingClient;
  /** Maximum number of tokens to sample. */
  maxTokens: number;
  /** Sampling temperature. Default 1. */
  temperature?: number;
}

/** A TokenCompleter that samples one sequence from a sampling client. */
export class TinkerTokenCompleter implements TokenCompleter {
  readonly samplingClient: CompleterSamplingClient;
  readonly maxTokens: number;
  readonly temperature: number;

  constructor(options: TinkerTokenCompleterOptions) {
    this.samplingClient = options.samplingClient;
    this.maxTokens = options.maxTokens;
    this.temperature = options.temperature ?? 1;
  }

  async complete(
    modelInput: ModelInput,
    stop: StopCondition,
    options: CompleteOptions = {},
  ): Promise<TokensWithLogprobs> {
    const seed = options.seed === undefined ? {} : { seed: options.seed };
    const res = await this.samplingClient.sample({
      prompt: modelInput,
      numSamples: 1,
      samplingParams: { maxTokens: this.maxTokens, temperature: this.temperature, stop, ...seed },
    });
    const seq = res.sequences[0];
    if (seq === undefined) throw new RendererError('the sampling client returned no sequence');
    return seq.logprobs === undefined ? { tokens: seq.tokens } : { tokens: seq.tokens, maybeLogprobs: seq.logprobs };
  }
}

/** Options of {@link TinkerMessageCompleter}. */
export interface TinkerMessageCompleterOptions {
  samplingClient: CompleterSamplingClient;
  renderer: Renderer;
  /** Maximum number of tokens to sample. */
  maxTokens: number;
  /** Stop condition; default: the renderer's stop sequences. */
  stop?: StopCondition;
  /** Sampling temperature. Default 1. */
  temperature?: number;
}

/** A MessageCompleter: render the conversation, sample, parse the response into a message. */
export class TinkerMessageCompleter implements MessageCompleter {
  readonly samplingClient: CompleterSamplingClient;
  readonly renderer: Renderer;
  readonly maxTokens: number;
  readonly stop: StopCondition;
  readonly temperature: number;

  constructor(options: TinkerMessageCompleterOptions) {
    this.samplingClient = options.samplingClient;
    this.renderer = options.renderer;
    this.maxTokens = options.maxTokens;
    this.stop = options.stop ?? options.renderer.getStopSequences();
    this.temperature = options.temperature ?? 1;
  }

  async complete(messages: Message[]): Promise<Message> {
    const prompt = this.renderer.buildGenerationPrompt(messages);
    const res = await this.samplingClient.sample({
      prompt,
      numSamples: 1,
      samplingParams: { maxTokens: this.maxTokens, temperature: this.temperature, stop: this.stop },
    });
    const seq = res.sequences[0];
    if (seq === undefined) throw new RendererError('the sampling client returned no sequence');
    return this.renderer.parseResponse(seq.tokens).message;
  }
}
