/**
 * The conversation behind `cookbook chat`, apart from any terminal: it renders the history with the model's
 * renderer and samples the reply in chunks of a few tokens (the Tinker sampling route returns a whole sample, so
 * chunks are what makes text appear as it is generated), reporting each chunk's new text as it arrives. An abort
 * between chunks stops the reply; what was generated so far stays in the history. The finished reply is parsed with
 * the renderer (thinking, text, tool calls). `/save` appends the conversation as one `{"messages": [...]}` JSONL line,
 * the format the SFT loader reads.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Message, type ModelInput, RendererError, type StopCondition } from '@cookbook/core';
import type { ModelSetup } from '@cookbook/renderers';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import { endsInsideThink, type TextPiece, ThinkSplitter } from './think-splitter.js';

/** Options of a {@link ChatSession}. */
export interface ChatSessionOptions {
  sampler: Pick<SamplingClientLike, 'sample'>;
  setup: Pick<ModelSetup, 'renderer' | 'tokenizer'>;
  /** The system prompt ('' = none). */
  system?: string;
  /** Most tokens of one reply. */
  maxTokens: number;
  temperature: number;
  topP: number;
  /** Seed of the first chunk of each reply (chunk i uses seed + i); undefined: random. */
  seed?: number | undefined;
  /** Tokens sampled per request while streaming. */
  chunkTokens: number;
}

/** How a reply ended. */
export type ReplyEnd = 'stop' | 'length' | 'interrupted';

/** A chat with one model. */
export class ChatSession {
  private system: string;
  private turns: Message[] = [];
  constructor(private readonly options: ChatSessionOptions) {
    this.system = options.system ?? '';
  }

  /** The conversation, the system prompt first when there is one. */
  get messages(): Message[] {
    return this.system === '' ? [...this.turns] : [{ role: 'system', content: this.system }, ...this.turns];
  }

  /** Forget every turn (the system prompt stays). */
  reset(): void {
    this.turns = [];
  }

  /** Replace the system prompt ('' removes it). */
  setSystem(text: string): void {
    this.system = text;
  }

  /** Append the conversation to `file` as one JSONL line `{"messages": [...]}`; returns the number of messages. */
  save(file: string): number {
    const messages = this.messages;
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${JSON.stringify({ messages })}\n`);
    return messages.length;
  }

  /**
   * Send `text` as the user's turn and sample the reply, calling `onPiece` with each new piece of text (thinking
   * or answer) as its chunk arrives. Returns the reply as stored and how it ended.
   */
  async reply(
    text: string,
    onPiece: (piece: TextPiece) => void,
    signal?: AbortSignal,
  ): Promise<{ message: Message; end: ReplyEnd }> {
    this.turns.push({ role: 'user', content: text });
    try {
      return await this.sampleReply(onPiece, signal);
    } catch (err) {
      this.turns.pop();
      throw err;
    }
  }

  private async sampleReply(
    onPiece: (piece: TextPiece) => void,
    signal: AbortSignal | undefined,
  ): Promise<{ message: Message; end: ReplyEnd }> {
    const o = this.options;
    const prompt: ModelInput = o.setup.renderer.buildGenerationPrompt(this.messages);
    const stop: StopCondition = o.setup.renderer.getStopSequences();
    const stopIds = new Set(stop.filter((s): s is number => typeof s === 'number'));
    const stopStrings = stop.filter((s): s is string => typeof s === 'string');
    const decode = (t: readonly number[]) => o.setup.tokenizer.decode(t);
    const splitter = new ThinkSplitter(endsInsideThink(decode(prompt.toInts().slice(-8))));
    const generated: number[] = [];
    let shown = '';
    let end: ReplyEnd = 'length';
    for (let chunk = 0; generated.length < o.maxTokens; chunk++) {
      if (signal?.aborted) {
        end = 'interrupted';
        break;
      }
      const res = await o.sampler.sample({
        prompt: prompt.appendInts(generated),
        numSamples: 1,
        samplingParams: {
          maxTokens: Math.min(o.chunkTokens, o.maxTokens - generated.length),
          temperature: o.temperature,
          topP: o.topP,
          stop,
          ...(o.seed === undefined ? {} : { seed: o.seed + chunk }),
        },
      });
      if (signal?.aborted) {
        end = 'interrupted';
        break;
      }
      const seq = res.sequences[0];
      if (seq === undefined) throw new RendererError('the sampling service returned no sequence');
      generated.push(...seq.tokens);
      const stopped = seq.stopReason === 'stop';
      // Show the text so far, less a stop token and an incomplete UTF-8 tail.
      const visible = stopped && stopIds.has(generated.at(-1) ?? -1) ? generated.slice(0, -1) : generated;
      let now = decode(visible);
      if (!stopped && now.endsWith('\uFFFD')) now = now.replace(/\uFFFD+$/, '');
      for (const s of stopStrings) {
        const i = now.indexOf(s);
        if (i >= 0) now = now.slice(0, i);
      }
      if (now.startsWith(shown) && now.length > shown.length) {
        for (const p of splitter.push(now.slice(shown.length))) onPiece(p);
        shown = now;
      }
      if (stopped) {
        end = 'stop';
        break;
      }
    }
    for (const p of splitter.flush()) onPiece(p);
    // A reply cut short is parsed as if it had ended there (its thinking and text told apart when the renderer
    // ends turns with a token).
    const endToken = [...stopIds][0];
    const message: Message =
      end === 'stop'
        ? o.setup.renderer.parseResponse(generated).message
        : endToken !== undefined
          ? o.setup.renderer.parseResponse([...generated, endToken]).message
          : { role: 'assistant', content: shown };
    this.turns.push(message);
    return { message, end };
  }
}
