// Minimal decoder for byte-level BPE tokenizers (GPT-2 byte↔unicode table, as used by Llama 3 and Qwen3):
// enough to turn sampled ids into text for string stop sequences, without a full tokenizer dependency.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelLoadError } from '../errors.js';

/** Turns token ids into text; `stream()` decodes incrementally (multi-byte characters split across tokens). */
export interface TokenDecoder {
  decode(tokens: ArrayLike<number>): string;
  stream(): { push(token: number): string };
  /** Id of a token given its exact string (added/special tokens included), or undefined. */
  tokenId(content: string): number | undefined;
}

function unicodeToByte(): Map<number, number> {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n);
      n++;
    }
  }
  const m = new Map<number, number>();
  for (let i = 0; i < bs.length; i++) m.set(cs[i]!, bs[i]!);
  return m;
}

const cache = new Map<string, TokenDecoder>();

/** Loads `tokenizer.json` from `dir` (cached per path). */
export function loadTokenDecoder(dir: string): TokenDecoder {
  const file = join(dir, 'tokenizer.json');
  const hit = cache.get(file);
  if (hit) return hit;
  if (!existsSync(file)) throw new ModelLoadError(`no tokenizer.json in ${dir}`);
  let raw: { model?: { vocab?: Record<string, number> }; added_tokens?: { id: number; content: string }[] };
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ModelLoadError(`${file} is not valid JSON`, { cause: e });
  }
  const vocab = raw.model?.vocab;
  if (!vocab || typeof vocab !== 'object')
    throw new ModelLoadError(`${file}: no model.vocab (expected a BPE tokenizer)`);
  const u2b = unicodeToByte();
  const enc = new TextEncoder();
  const bytes: Uint8Array[] = [];
  const ids = new Map<string, number>();
  for (const [tok, id] of Object.entries(vocab)) {
    const out = new Uint8Array(tok.length * 4);
    let n = 0;
    let ok = true;
    for (const ch of tok) {
      const b = u2b.get(ch.codePointAt(0)!);
      if (b === undefined) {
        ok = false;
        break;
      }
      out[n++] = b;
    }
    bytes[id] = ok ? out.slice(0, n) : enc.encode(tok);
    ids.set(tok, id);
  }
  for (const a of raw.added_tokens ?? []) {
    bytes[a.id] = enc.encode(a.content);
    ids.set(a.content, a.id);
  }
  const empty = new Uint8Array(0);
  const decoder: TokenDecoder = {
    decode(tokens) {
      const parts: Uint8Array[] = [];
      let len = 0;
      for (let i = 0; i < tokens.length; i++) {
        const b = bytes[tokens[i]!] ?? empty;
        parts.push(b);
        len += b.length;
      }
      const all = new Uint8Array(len);
      let o = 0;
      for (const p of parts) {
        all.set(p, o);
        o += p.length;
      }
      return new TextDecoder().decode(all);
    },
    stream() {
      const td = new TextDecoder();
      return { push: (token: number) => td.decode(bytes[token] ?? empty, { stream: true }) };
    },
    tokenId: (content) => ids.get(content),
  };
  cache.set(file, decoder);
  return decoder;
}

/** EOS ids named by tokenizer_config.json (`eos_token`), resolved through tokenizer.json; [] when absent. */
export function tokenizerEosIds(dir: string): number[] {
  const file = join(dir, 'tokenizer_config.json');
  if (!existsSync(file) || !existsSync(join(dir, 'tokenizer.json'))) return [];
  try {
    const cfg = JSON.parse(readFileSync(file, 'utf8')) as { eos_token?: unknown };
    const e = cfg.eos_token;
    const content =
      typeof e === 'string'
        ? e
        : typeof e === 'object' && e !== null && 'content' in e
          ? String((e as { content: unknown }).content)
          : null;
    if (content === null) return [];
    const id = loadTokenDecoder(dir).tokenId(content);
    return id === undefined ? [] : [id];
  } catch {
    return [];
  }
}
