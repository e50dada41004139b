/**
 * A byte-level BPE tokenizer for the tiktoken file format (`tiktoken.model`: one `base64(token bytes) rank` pair per
 * line), the format Moonshot's Kimi models ship instead of a tokenizer.json. Encoding follows tiktoken: special
 * tokens are matched first, the text between them is split by the model's pre-tokenizer pattern, and each piece is
 * merged pair by pair, lowest rank first. Token strings (`convertIdToToken`) use the GPT-2 byte-to-unicode mapping,
 * as Hugging Face's tiktoken-backed tokenizers expose them.
 */
import { ConfigError, DataError } from '@cookbook/core';
import type { EncodeOptions, Tokenizer } from './tokenizer-types.js';

/** Largest tiktoken.model accepted (Kimi's is about 2.8 MB). */
export const MAX_TIKTOKEN_FILE_BYTES = 64 * 1024 * 1024;

/** Ranks of a tiktoken file: token bytes (as a latin1 string, one char per byte) → rank. */
export type TiktokenRanks = Map<string, number>;

/**
 * Parse the text of a tiktoken.model file. Every non-empty line is `base64 rank`; ranks must be distinct non-negative
 * integers. Errors name the file and line.
 */
export function parseTiktokenRanks(text: string, file = 'tiktoken.model'): TiktokenRanks {
  if (text.length > MAX_TIKTOKEN_FILE_BYTES) {
    throw new DataError(`${file} is ${text.length} bytes; at most ${MAX_TIKTOKEN_FILE_BYTES} are accepted`, { file });
  }
  const ranks: TiktokenRanks = new Map();
  const seen = new Set<number>();
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    const m = /^([A-Za-z0-9+/]*={0,2}) (\d+)$/.exec(line);
    if (m === null) {
      throw new DataError(
        `${file}:${i + 1}: expected "<base64 token> <rank>", got ${JSON.stringify(line.slice(0, 80))}`,
        {
          file,
          line: i + 1,
        },
      );
    }
    const bytes = Buffer.from(m[1] ?? '', 'base64');
    const rank = Number(m[2]);
    if (bytes.length === 0 || !Number.isSafeInteger(rank)) {
      throw new DataError(`${file}:${i + 1}: empty token or rank out of range`, { file, line: i + 1 });
    }
    const key = bytes.toString('latin1');
    if (ranks.has(key) || seen.has(rank)) {
      throw new DataError(`${file}:${i + 1}: token or rank ${rank} appears twice`, { file, line: i + 1 });
    }
    ranks.set(key, rank);
    seen.add(rank);
  });
  if (ranks.size === 0) throw new DataError(`${file} holds no tokens`, { file });
  return ranks;
}

/** GPT-2's printable stand-in for each byte (upstream `bytes_to_unicode`). */
function byteToUnicodeTable(): string[] {
  const table: string[] = new Array(256);
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  let n = 0;
  for (let b = 0; b < 256; b++) table[b] = String.fromCodePoint(printable(b) ? b : 256 + n++);
  return table;
}

/** Options of {@link TiktokenTokenizer}. */
export interface TiktokenTokenizerOptions {
  /** The name it is known by (model name or folder). */
  name: string;
  /** Mergeable ranks from {@link parseTiktokenRanks}; a token's id is its rank. */
  ranks: TiktokenRanks;
  /** Special (control) tokens: string → id. Their ids must not collide with a rank. */
  specialTokens: ReadonlyMap<string, number>;
  /** The pre-tokenizer pattern (flags are ignored; it runs with `gu`). */
  pattern: RegExp;
  /** Cut the text into runs of at most this many whitespace / non-whitespace code points before encoding. */
  maxConsecutiveRun?: number;
  bosToken?: string | undefined;
  eosToken?: string | undefined;
  chatTemplate?: string | undefined;
}

/** Python's `str.isspace` for one character (whitespace, plus the separators U+001C–U+001F and U+0085). */
const PY_SPACE = new Set([...'\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000']);
for (let c = 0x2000; c <= 0x200a; c++) PY_SPACE.add(String.fromCharCode(c));

/** Cache bound of encoded pieces (pieces repeat a lot in chat text). */
const PIECE_CACHE_LIMIT = 50_000;

/** A {@link Tokenizer} over tiktoken ranks with a model-specific pre-tokenizer pattern and special tokens. */
export class TiktokenTokenizer implements Tokenizer {
  readonly name: string;
  readonly bosToken: string | undefined;
  readonly eosToken: string | undefined;
  readonly bosTokenId: number | undefined;
  readonly eosTokenId: number | undefined;
  readonly chatTemplate: string | undefined;
  readonly controlTokens: readonly string[];
  readonly vocabSize: number;
  private readonly ranks: TiktokenRanks;
  private readonly specials: ReadonlyMap<string, number>;
  private readonly idToBytes: (Uint8Array | undefined)[];
  private readonly idToSpecial = new Map<number, string>();
  private readonly pattern: RegExp;
  private readonly specialPattern: RegExp | undefined;
  private readonly maxRun: number;
  private readonly pieceCache = new Map<string, number[]>();
  private readonly decoder = new TextDecoder('utf-8');
  private readonly byteToUnicode = byteToUnicodeTable();
  private unicodeToByte: Map<string, number> | undefined;

  constructor(options: TiktokenTokenizerOptions) {
    this.name = options.name;
    this.ranks = options.ranks;
    this.specials = options.specialTokens;
    this.pattern = new RegExp(options.pattern.source, 'gu');
    this.maxRun = options.maxConsecutiveRun ?? Number.POSITIVE_INFINITY;
    let maxId = -1;
    for (const r of this.ranks.values()) maxId = Math.max(maxId, r);
    for (const [s, id] of this.specials) {
      if (!Number.isSafeInteger(id) || id < 0) throw new ConfigError(`special token ${s} has an invalid id ${id}`);
      maxId = Math.max(maxId, id);
      this.idToSpecial.set(id, s);
    }
    this.vocabSize = maxId + 1;
    this.idToBytes = new Array(this.vocabSize);
    for (const [key, rank] of this.ranks) {
      if (this.idToSpecial.has(rank))
        throw new ConfigError(`special token id ${rank} is also a BPE rank in ${this.name}`);
      this.idToBytes[rank] = Uint8Array.from(Buffer.from(key, 'latin1'));
    }
    this.controlTokens = [...this.specials.keys()];
    // Longer specials first, so one that is a prefix of another never wins the match.
    const alternatives = [...this.controlTokens].sort((a, b) => b.length - a.length);
    this.specialPattern =
      alternatives.length === 0
        ? undefined
        : new RegExp(alternatives.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gu');
    this.bosToken = options.bosToken;
    this.eosToken = options.eosToken;
    this.bosTokenId = this.bosToken === undefined ? undefined : this.specials.get(this.bosToken);
    this.eosTokenId = this.eosToken === undefined ? undefined : this.specials.get(this.eosToken);
    this.chatTemplate = options.chatTemplate;
  }

  /**
   * Token ids of `text`. Special-token strings become their tokens unless `splitSpecialTokens` is set. A tiktoken
   * tokenizer has no post-processor, so `addSpecialTokens` adds nothing (Kimi's adds no BOS either).
   */
  encode(text: string, options?: EncodeOptions): number[] {
    const out: number[] = [];
    for (const run of this.runs(text)) {
      if (options?.splitSpecialTokens === true || this.specialPattern === undefined) {
        this.encodeOrdinary(run, out);
        continue;
      }
      let last = 0;
      for (const m of run.matchAll(this.specialPattern)) {
        this.encodeOrdinary(run.slice(last, m.index), out);
        out.push(this.specials.get(m[0]) as number);
        last = m.index + m[0].length;
      }
      this.encodeOrdinary(run.slice(last), out);
    }
    return out;
  }

  decode(tokens: readonly number[]): string {
    const parts: Uint8Array[] = [];
    let total = 0;
    for (const id of tokens) {
      const special = this.idToSpecial.get(id);
      const bytes = special === undefined ? this.idToBytes[id] : Buffer.from(special, 'utf8');
      if (bytes === undefined) {
        throw new DataError(`token id ${id} is not in the vocabulary of ${this.name} (size ${this.vocabSize})`, {
          field: 'tokens',
        });
      }
      parts.push(bytes);
      total += bytes.length;
    }
    const all = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    return this.decoder.decode(all);
  }

  convertTokenToId(token: string): number | undefined {
    const special = this.specials.get(token);
    if (special !== undefined) return special;
    this.unicodeToByte ??= new Map(this.byteToUnicode.map((c, b) => [c, b]));
    let key = '';
    for (const ch of token) {
      const b = this.unicodeToByte.get(ch);
      if (b === undefined) return undefined;
      key += String.fromCharCode(b);
    }
    return this.ranks.get(key);
  }

  convertIdToToken(id: number): string | undefined {
    const special = this.idToSpecial.get(id);
    if (special !== undefined) return special;
    const bytes = this.idToBytes[id];
    if (bytes === undefined) return undefined;
    let s = '';
    for (const b of bytes) s += this.byteToUnicode[b];
    return s;
  }

  /** The text cut into runs of at most `maxRun` whitespace or non-whitespace code points (Kimi's encode does this). */
  private *runs(text: string): Generator<string> {
    if (!Number.isFinite(this.maxRun) || text.length <= this.maxRun) {
      yield text;
      return;
    }
    let start = 0;
    let len = 0;
    let isSpace: boolean | undefined;
    let i = 0;
    for (const ch of text) {
      const space = PY_SPACE.has(ch);
      if (isSpace === undefined || space !== isSpace) {
        isSpace = space;
        len = 1;
      } else if (++len > this.maxRun) {
        yield text.slice(start, i);
        start = i;
        len = 1;
      }
      i += ch.length;
    }
    yield text.slice(start);
  }

  private encodeOrdinary(text: string, out: number[]): void {
    if (text === '') return;
    for (const m of text.matchAll(this.pattern)) {
      const piece = m[0];
      const hit = this.pieceCache.get(piece);
      if (hit !== undefined) {
        out.push(...hit);
        continue;
      }
      const ids = this.bytePairEncode(Buffer.from(piece, 'utf8').toString('latin1'));
      if (this.pieceCache.size >= PIECE_CACHE_LIMIT) this.pieceCache.clear();
      this.pieceCache.set(piece, ids);
      out.push(...ids);
    }
  }

  /**
   * tiktoken's merge: start from single bytes and repeatedly join the adjacent pair whose joined bytes have the
   * lowest rank (leftmost on ties) until no joined pair has a rank. A linked list plus a lazily-invalidated heap keeps
   * it O(n log n) for long pieces (a run of thousands of spaces is one piece).
   */
  private bytePairEncode(piece: string): number[] {
    const whole = this.ranks.get(piece);
    if (whole !== undefined) return [whole];
    const n = piece.length;
    const start = Array.from({ length: n }, (_, i) => i); // start offset of the part beginning at i
    const end = Array.from({ length: n }, (_, i) => i + 1);
    const next = Array.from({ length: n }, (_, i) => (i + 1 < n ? i + 1 : -1));
    const prev = Array.from({ length: n }, (_, i) => i - 1);
    const alive = new Array<boolean>(n).fill(true);
    const heap = new MergeHeap();
    const push = (left: number): void => {
      const right = next[left] ?? -1;
      if (right < 0) return;
      const rank = this.ranks.get(piece.slice(start[left], end[right]));
      if (rank !== undefined) heap.push(rank, left, end[right] as number);
    };
    for (let i = 0; i + 1 < n; i++) push(i);
    for (;;) {
      const top = heap.pop();
      if (top === undefined) break;
      const [, left, pairEnd] = top;
      const right = next[left] ?? -1;
      // Stale entry: the left part was merged away, or its right neighbour changed since the pair was pushed.
      if (!alive[left] || right < 0 || end[right] !== pairEnd) continue;
      end[left] = end[right] as number;
      alive[right] = false;
      next[left] = next[right] as number;
      if ((next[right] as number) >= 0) prev[next[right] as number] = left;
      if ((prev[left] as number) >= 0) push(prev[left] as number);
      push(left);
    }
    const ids: number[] = [];
    for (let i = 0; i >= 0 && i < n; i = next[i] as number) {
      const rank = this.ranks.get(piece.slice(start[i], end[i]));
      if (rank === undefined) {
        throw new ConfigError(
          `${this.name}: byte ${piece.charCodeAt(start[i] as number)} has no rank; a tiktoken.model must rank all 256 bytes`,
        );
      }
      ids.push(rank);
    }
    return ids;
  }
}

/** A binary min-heap of candidate merges ordered by (rank, position). */
class MergeHeap {
  private readonly items: [number, number, number][] = [];

  push(rank: number, left: number, pairEnd: number): void {
    const a = this.items;
    a.push([rank, left, pairEnd]);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): [number, number, number] | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined) return undefined;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l]!, a[m]!)) m = l;
        if (r < a.length && less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

function less(x: [number, number, number], y: [number, number, number]): boolean {
  return x[0] < y[0] || (x[0] === y[0] && x[1] < y[1]);
}
