/**
 * A tokenizer that remembers what it encoded (conformance runs only). Encoding is a pure function of the text and the
 * options, so a remembered result is the tokenizer's own result: the conformance suite encodes the same message texts
 * and tool declarations many times (a generation prompt and its supervised example share every message but the last;
 * rows of one family share their generated conversations), and this is what makes 500 conversations per row cheap.
 * The memory is bounded: past {@link MAX_ENTRIES} remembered texts it starts over.
 */
import type { EncodeOptions, Tokenizer } from '@cookbook/tokenizers';

/** Remembered encodings per tokenizer before the memory is cleared. */
const MAX_ENTRIES = 200_000;

/** Wraps a tokenizer; every call but `encode` goes straight to it. */
export class MemoTokenizer implements Tokenizer {
  private readonly memo = new Map<string, readonly number[]>();
  /** Encodings answered from memory, and encodings computed (for the bench's profile). */
  hits = 0;
  misses = 0;

  constructor(readonly inner: Tokenizer) {}

  get name(): string {
    return this.inner.name;
  }
  get bosToken(): string | undefined {
    return this.inner.bosToken;
  }
  get eosToken(): string | undefined {
    return this.inner.eosToken;
  }
  get bosTokenId(): number | undefined {
    return this.inner.bosTokenId;
  }
  get eosTokenId(): number | undefined {
    return this.inner.eosTokenId;
  }
  get vocabSize(): number {
    return this.inner.vocabSize;
  }
  get chatTemplate(): string | undefined {
    return this.inner.chatTemplate;
  }
  get controlTokens(): readonly string[] {
    return this.inner.controlTokens;
  }

  encode(text: string, options?: EncodeOptions): number[] {
    const key = `${options?.addSpecialTokens === true ? 1 : 0}${options?.splitSpecialTokens === true ? 1 : 0}${text}`;
    const hit = this.memo.get(key);
    if (hit !== undefined) {
      this.hits++;
      return [...hit];
    }
    this.misses++;
    const ids = this.inner.encode(text, options);
    if (this.memo.size >= MAX_ENTRIES) this.memo.clear();
    this.memo.set(key, ids.slice());
    return ids;
  }

  decode(tokens: readonly number[]): string {
    return this.inner.decode(tokens);
  }
  convertTokenToId(token: string): number | undefined {
    return this.inner.convertTokenToId(token);
  }
  convertIdToToken(id: number): string | undefined {
    return this.inner.convertIdToToken(id);
  }
}

const shared = new WeakMap<Tokenizer, MemoTokenizer>();

/** The one memoising wrapper of `tokenizer` (rows of one family share what was encoded). */
export function memoTokenizer(tokenizer: Tokenizer): MemoTokenizer {
  if (tokenizer instanceof MemoTokenizer) return tokenizer;
  let memo = shared.get(tokenizer);
  if (memo === undefined) {
    memo = new MemoTokenizer(tokenizer);
    shared.set(tokenizer, memo);
  }
  return memo;
}
