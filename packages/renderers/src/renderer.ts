/**
 * The renderer contract (upstream `renderers/base.py`): messages ⇄ tokens for one chat format, supervised examples
 * with per-token weights, stop sequences and response parsing. {@link BaseRenderer} implements the shared
 * algorithms (generation prompt, supervised example with its post-pass) on top of `renderMessage`.
 */
import {
  DataError,
  type Message,
  ModelInput,
  type ModelInputChunk,
  RendererError,
  type StopCondition,
  type ToolSpec,
} from '@cookbook/core';
import type { Tokenizer } from '@cookbook/tokenizers';

/** Which tokens of a conversation a supervised example trains on. */
export const TrainOnWhat = {
  /** The output of the last message, when it is an assistant message. */
  LAST_ASSISTANT_MESSAGE: 'last_assistant_message',
  /** Every assistant message after the last user message (the last turn). */
  LAST_ASSISTANT_TURN: 'last_assistant_turn',
  /** Every assistant message's output. */
  ALL_ASSISTANT_MESSAGES: 'all_assistant_messages',
  /** Every message's output (headers excluded). */
  ALL_MESSAGES: 'all_messages',
  /** Every token but the BOS: outputs and headers. */
  ALL_TOKENS: 'all_tokens',
  /** Every user and system message's output. */
  ALL_USER_AND_SYSTEM_MESSAGES: 'all_user_and_system_messages',
  /** Each message's `trainable` flag decides (required on every message). */
  CUSTOMIZED: 'customized',
} as const;

/** One of the {@link TrainOnWhat} values. */
export type TrainOnWhat = (typeof TrainOnWhat)[keyof typeof TrainOnWhat];

/** How a sampled response ended: at a stop sequence, at the EOS token, or neither (truncated / garbled). */
export type ParseTermination = 'stop_sequence' | 'eos' | 'malformed';

/** Whether a termination is clean (a stop sequence or EOS). */
export function isCleanTermination(termination: ParseTermination): boolean {
  return termination !== 'malformed';
}

/** A parsed response. */
export interface ParsedResponse {
  message: Message;
  termination: ParseTermination;
}

/** Parse a response without throwing: a parser error counts as a malformed response (the text decoded as is). */
export function safeParseResponse(renderer: Renderer, tokens: readonly number[]): ParsedResponse {
  try {
    return renderer.parseResponse(tokens);
  } catch {
    return { message: { role: 'assistant', content: renderer.tokenizer.decode(tokens) }, termination: 'malformed' };
  }
}

/** Where a message sits in the conversation being rendered. */
export interface RenderContext {
  /** Index of the message (equals `messages.length` for the generation suffix). */
  idx: number;
  /** Whether it is the last message. */
  isLast: boolean;
  /** The message before it, if any. */
  prevMessage: Message | undefined;
  /** The message after it, if any. */
  nextMessage: Message | undefined;
  /** Index of the last user message, -1 when there is none. */
  lastUserIndex: number;
  /** The whole conversation. */
  messages: readonly Message[];
}

/** One rendered message: a header (weight 0 unless ALL_TOKENS), output chunks, and an optional stop overlap. */
export interface RenderedMessage {
  /** Role header tokens; never trained except with ALL_TOKENS. */
  header?: number[];
  /** The message body; trained according to TrainOnWhat. */
  output: ModelInputChunk[];
  /** Tokens that follow the message only at the end of a supervised example (e.g. role_colon's `User:`). */
  stopOverlap?: number[];
}

/** Options of {@link Renderer.buildGenerationPrompt}. */
export interface GenerationPromptOptions {
  /** Role of the message to generate. Default `assistant`. */
  role?: string;
  /** Text appended after the generation header (encoded without special tokens). */
  prefill?: string;
}

/** A supervised example: the full token sequence and one weight per token. */
export interface SupervisedExample {
  modelInput: ModelInput;
  weights: number[];
}

/** Converts conversations to tokens for one chat format, and sampled tokens back to messages. */
export interface Renderer {
  /** The tokenizer it encodes with. */
  readonly tokenizer: Tokenizer;
  /** Whether each observation of a multi-turn rollout extends the previous observation plus action. */
  readonly hasExtensionProperty: boolean;
  /** Whether the format turns reasoning off (such renderers refuse to train on a reasoned turn). */
  readonly disablesThinking: boolean;
  /** Render one message in its context. */
  renderMessage(message: Message, ctx: RenderContext): RenderedMessage;
  /** BOS + rendered messages + the header of the message to generate + prefill. */
  buildGenerationPrompt(messages: readonly Message[], options?: GenerationPromptOptions): ModelInput;
  /** Tokens and per-token weights for supervised learning. Default: LAST_ASSISTANT_MESSAGE. */
  buildSupervisedExample(messages: readonly Message[], trainOnWhat?: TrainOnWhat): SupervisedExample;
  /** Where sampling stops: stop strings or stop token ids. */
  getStopSequences(): StopCondition;
  /** Parse sampled tokens into an assistant message. */
  parseResponse(tokens: readonly number[]): ParsedResponse;
  /** Messages that declare `tools` (and carry `systemPrompt`) in this format; put them first in the conversation. */
  createConversationPrefixWithTools(tools: readonly ToolSpec[], systemPrompt?: string): Message[];
}

function lastIndexWhere<T>(xs: readonly T[], pred: (x: T) => boolean, end = xs.length): number {
  for (let i = end - 1; i >= 0; i--) if (pred(xs[i]!)) return i;
  return -1;
}

/** The render context of message `idx` of `messages` (`idx === messages.length` for the generation suffix). */
export function makeRenderContext(messages: readonly Message[], idx: number): RenderContext {
  return {
    idx,
    isLast: idx >= messages.length - 1,
    prevMessage: idx > 0 ? messages[idx - 1] : undefined,
    nextMessage: messages[idx + 1],
    lastUserIndex: lastIndexWhere(messages, (m) => m.role === 'user'),
    messages,
  };
}

/** The weight of message `idx`'s output under `trainOnWhat` (1 trained, 0 not). */
export function outputWeight(
  trainOnWhat: TrainOnWhat,
  message: Message,
  idx: number,
  messages: readonly Message[],
): number {
  const isAssistant = message.role === 'assistant';
  switch (trainOnWhat) {
    case TrainOnWhat.LAST_ASSISTANT_MESSAGE:
      return idx === messages.length - 1 && isAssistant ? 1 : 0;
    case TrainOnWhat.LAST_ASSISTANT_TURN: {
      const turnStart = lastIndexWhere(messages, (m) => m.role === 'user', messages.length - 1) + 1;
      return isAssistant && idx >= turnStart ? 1 : 0;
    }
    case TrainOnWhat.ALL_ASSISTANT_MESSAGES:
      return isAssistant ? 1 : 0;
    case TrainOnWhat.ALL_MESSAGES:
    case TrainOnWhat.ALL_TOKENS:
      return 1;
    case TrainOnWhat.ALL_USER_AND_SYSTEM_MESSAGES:
      return message.role === 'user' || message.role === 'system' ? 1 : 0;
    case TrainOnWhat.CUSTOMIZED:
      return message.trainable === true ? 1 : 0;
    default: {
      const never: never = trainOnWhat;
      throw new DataError(`unknown train_on_what "${String(never)}"; expected one of ${Object.values(TrainOnWhat)}`, {
        field: 'train_on_what',
      });
    }
  }
}

/** Throws a DataError when `trainable` flags and `trainOnWhat` disagree (customized needs them; others forbid them). */
export function checkTrainableFlags(messages: readonly Message[], trainOnWhat: TrainOnWhat): void {
  messages.forEach((m, i) => {
    const has = m.trainable !== undefined;
    if (trainOnWhat === TrainOnWhat.CUSTOMIZED && !has) {
      throw new DataError('train_on_what=customized needs a boolean "trainable" on every message', {
        field: `messages[${i}].trainable`,
      });
    }
    if (trainOnWhat !== TrainOnWhat.CUSTOMIZED && has) {
      throw new DataError(`"trainable" is only allowed with train_on_what=customized (got ${trainOnWhat})`, {
        field: `messages[${i}].trainable`,
      });
    }
  });
}

/** Append a chunk and its weights: image positions always weigh 0 (no loss on image tokens). */
function pushChunk(chunks: ModelInputChunk[], weights: number[], chunk: ModelInputChunk, weight: number): void {
  if (chunk.type !== 'encoded_text' && chunk.expected_tokens === undefined) {
    throw new DataError(`an ${chunk.type} chunk needs expected_tokens (its length in tokens) to be rendered`);
  }
  const n = chunk.type === 'encoded_text' ? chunk.tokens.length : (chunk.expected_tokens ?? 0);
  if (n === 0) return;
  chunks.push(chunk);
  const w = chunk.type === 'encoded_text' ? weight : 0;
  for (let i = 0; i < n; i++) weights.push(w);
}

/** One entry per position: the token id, or a key naming the image that covers it (for prefix comparisons). */
function positions(chunks: readonly ModelInputChunk[]): (number | string)[] {
  const out: (number | string)[] = [];
  for (const c of chunks) {
    if (c.type === 'encoded_text') for (const t of c.tokens) out.push(t);
    else {
      const key = c.type === 'image' ? `image:${c.format}:${c.data}` : `${c.type}:${c.location}`;
      for (let i = 0; i < (c.expected_tokens ?? 0); i++) out.push(key);
    }
  }
  return out;
}

/**
 * Shared implementation of {@link Renderer}. Subclasses implement `renderMessage`, `getStopSequences`,
 * `parseResponse`, and override the protected hooks where the format needs it.
 */
export abstract class BaseRenderer implements Renderer {
  readonly tokenizer: Tokenizer;

  constructor(tokenizer: Tokenizer) {
    this.tokenizer = tokenizer;
  }

  get hasExtensionProperty(): boolean {
    return false;
  }

  get disablesThinking(): boolean {
    return false;
  }

  abstract renderMessage(message: Message, ctx: RenderContext): RenderedMessage;
  abstract getStopSequences(): StopCondition;
  abstract parseResponse(tokens: readonly number[]): ParsedResponse;

  createConversationPrefixWithTools(tools: readonly ToolSpec[], systemPrompt?: string): Message[] {
    if (tools.length > 0) {
      throw new RendererError(
        `${this.constructor.name} has no tool-calling format; use a renderer that supports tools`,
      );
    }
    return systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
  }

  /** Tokens before the first message (BOS, or a fixed system block). */
  protected bosTokens(_messages: readonly Message[]): number[] {
    return [];
  }

  /** Tokens that open the message to generate. Default: the header of an empty `role` message. */
  protected generationSuffix(role: string, messages: readonly Message[]): number[] {
    const ctx = makeRenderContext(messages, messages.length);
    return this.renderMessage({ role, content: '' }, ctx).header ?? [];
  }

  /** Text prefilled after the generation suffix, combined with the caller's prefill. */
  protected generationPrefill(_messages: readonly Message[], prefill: string | undefined): string | undefined {
    return prefill;
  }

  /** Encode a token id by its exact string; throws when the vocabulary has no such single token. */
  protected tokenId(token: string): number {
    const id = this.tokenizer.convertTokenToId(token);
    if (id === undefined) {
      throw new RendererError(`the tokenizer "${this.tokenizer.name}" has no token ${JSON.stringify(token)}`);
    }
    return id;
  }

  /**
   * Encode a renderer's own structure text (no message text in it): special-token strings in it become the special
   * tokens. Text that comes from a message goes through {@link encodeText} or {@link tpl} instead.
   */
  protected encode(text: string): number[] {
    return text === '' ? [] : this.tokenizer.encode(text, { addSpecialTokens: false });
  }

  /**
   * Encode text that comes from a message (content, thinking, a role or tool name, tool arguments and results):
   * control-token strings in it (every added token of the tokenizer, `<|eot_id|>` as well as Qwen's `<think>`) stay
   * text, so a quoted `<|eot_id|>` can never end a turn.
   */
  protected encodeText(text: string): number[] {
    return text === '' ? [] : this.tokenizer.encode(text, { addSpecialTokens: false, splitSpecialTokens: true });
  }

  /**
   * Encode a template whose literal parts are the renderer's structure and whose `${…}` values are message text:
   * `` this.tpl`<|start_header_id|>${role}<|end_header_id|>\n\n${content}` ``. Special tokens are matched only in the
   * literal parts; the text between two of them is encoded as one piece (values included), exactly as the
   * tokenizer encodes the whole string when the values hold no special-token strings — so the tokens equal the
   * official template's, and a value that does hold one stays text.
   */
  protected tpl(strings: TemplateStringsArray | readonly string[], ...values: string[]): number[] {
    const specials = this.tokenizer.controlTokens;
    const out: number[] = [];
    let pending = '';
    const flush = () => {
      out.push(...this.encodeText(pending));
      pending = '';
    };
    strings.forEach((literal, i) => {
      let pos = 0;
      for (;;) {
        let hit: string | undefined;
        let at = literal.length;
        if (literal.includes('<', pos)) {
          for (const s of specials) {
            const j = literal.indexOf(s, pos);
            if (j >= 0 && (j < at || (j === at && s.length > (hit?.length ?? 0)))) {
              at = j;
              hit = s;
            }
          }
        }
        pending += literal.slice(pos, at);
        if (hit === undefined) break;
        flush();
        out.push(this.tokenId(hit));
        pos = at + hit.length;
      }
      if (i < values.length) pending += values[i];
    });
    flush();
    return out;
  }

  buildGenerationPrompt(messages: readonly Message[], options: GenerationPromptOptions = {}): ModelInput {
    const chunks: ModelInputChunk[] = [];
    const weights: number[] = [];
    const bos = this.bosTokens(messages);
    pushChunk(chunks, weights, { type: 'encoded_text', tokens: bos }, 0);
    messages.forEach((message, idx) => {
      const rendered = this.renderMessage(message, makeRenderContext(messages, idx));
      if (rendered.header) pushChunk(chunks, weights, { type: 'encoded_text', tokens: rendered.header }, 0);
      for (const c of rendered.output) pushChunk(chunks, weights, c, 0);
    });
    const suffix = this.generationSuffix(options.role ?? 'assistant', messages);
    pushChunk(chunks, weights, { type: 'encoded_text', tokens: suffix }, 0);
    const prefill = this.generationPrefill(messages, options.prefill);
    if (prefill) pushChunk(chunks, weights, { type: 'encoded_text', tokens: this.encode(prefill) }, 0);
    let out = ModelInput.empty();
    for (const c of chunks) out = out.appendChunk(c);
    return out;
  }

  buildSupervisedExample(
    messages: readonly Message[],
    trainOnWhat: TrainOnWhat = TrainOnWhat.LAST_ASSISTANT_MESSAGE,
  ): SupervisedExample {
    checkTrainableFlags(messages, trainOnWhat);
    const chunks: ModelInputChunk[] = [];
    const weights: number[] = [];
    pushChunk(chunks, weights, { type: 'encoded_text', tokens: this.bosTokens(messages) }, 0);
    const headerWeight = trainOnWhat === TrainOnWhat.ALL_TOKENS ? 1 : 0;
    messages.forEach((message, idx) => {
      const rendered = this.renderMessage(message, makeRenderContext(messages, idx));
      const w = outputWeight(trainOnWhat, message, idx, messages);
      if (rendered.header) pushChunk(chunks, weights, { type: 'encoded_text', tokens: rendered.header }, headerWeight);
      for (const c of rendered.output) pushChunk(chunks, weights, c, w);
      if (idx === messages.length - 1 && rendered.stopOverlap) {
        pushChunk(chunks, weights, { type: 'encoded_text', tokens: rendered.stopOverlap }, w);
      }
    });
    if (trainOnWhat === TrainOnWhat.LAST_ASSISTANT_MESSAGE || trainOnWhat === TrainOnWhat.LAST_ASSISTANT_TURN) {
      this.zeroPromptPrefix(messages, trainOnWhat, chunks, weights);
    }
    let modelInput = ModelInput.empty();
    for (const c of chunks) modelInput = modelInput.appendChunk(c);
    return { modelInput, weights };
  }

  /**
   * Post-pass for the last-message/turn modes: when the tokens start with the generation prompt of the prefix,
   * that whole prompt (including any prefill such as an empty think block) gets weight 0. A renderer that disables
   * thinking refuses a trained turn that does not start with its (thinking-off) generation prompt.
   */
  private zeroPromptPrefix(
    messages: readonly Message[],
    trainOnWhat: TrainOnWhat,
    chunks: readonly ModelInputChunk[],
    weights: number[],
  ): void {
    const n = messages.length;
    let boundary = n - 1;
    if (trainOnWhat === TrainOnWhat.LAST_ASSISTANT_TURN) {
      const turnStart = lastIndexWhere(messages, (m) => m.role === 'user', n - 1) + 1;
      if (messages[turnStart]?.role === 'assistant') boundary = turnStart;
    }
    if (boundary < 0 || messages[boundary]?.role !== 'assistant') return;
    const prompt = positions(this.buildGenerationPrompt(messages.slice(0, boundary)).chunks);
    const tokens = positions(chunks);
    const isPrefix = prompt.length <= tokens.length && prompt.every((t, i) => tokens[i] === t);
    if (isPrefix) {
      for (let i = 0; i < prompt.length; i++) weights[i] = 0;
    } else if (this.disablesThinking) {
      throw new RendererError(
        `${this.constructor.name} disables thinking, but the trained assistant message at index ${boundary} does not ` +
          'start with its thinking-off generation prompt (it contains reasoning, or the conversation has no user ' +
          'message); use a thinking renderer for reasoned turns',
      );
    }
  }
}

/**
 * Parse for formats that end a message with one stop token: none found → the whole decode, `malformed`;
 * one → the text before it, `stop_sequence`; more → RendererError (sampling used the wrong stop condition).
 */
export function parseResponseForStopToken(
  tokens: readonly number[],
  tokenizer: Tokenizer,
  stopToken: number,
): { text: string; termination: ParseTermination } {
  let count = 0;
  let first = -1;
  tokens.forEach((t, i) => {
    if (t === stopToken) {
      count++;
      if (first < 0) first = i;
    }
  });
  if (count === 0) return { text: tokenizer.decode(tokens), termination: 'malformed' };
  if (count > 1) {
    throw new RendererError(
      `expected at most one stop token ${stopToken} in the response, found ${count}; sample with the renderer's ` +
        'getStopSequences() as the stop condition',
    );
  }
  return { text: tokenizer.decode(tokens.slice(0, first)), termination: 'stop_sequence' };
}
