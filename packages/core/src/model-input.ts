/**
 * ModelInput: the token sequence sent to the service, as a list of chunks (upstream `tinker.ModelInput`).
 * Instances are immutable; every "append" returns a new ModelInput.
 */

import { DataError } from './errors.js';

/** A run of text tokens. */
export interface EncodedTextChunk {
  type: 'encoded_text';
  tokens: number[];
}

/** An image; its length in tokens is `expected_tokens` (advisory, the server computes the real count). */
export interface ImageChunk {
  type: 'image';
  /** Base64-encoded image bytes. */
  data: string;
  format: 'png' | 'jpeg';
  expected_tokens?: number;
}

/** An image stored elsewhere. */
export interface ImageAssetPointerChunk {
  type: 'image_asset_pointer';
  format: 'png' | 'jpeg';
  location: string;
  expected_tokens?: number;
}

/** One chunk of a ModelInput, as it travels on the wire. */
export type ModelInputChunk = EncodedTextChunk | ImageChunk | ImageAssetPointerChunk;

/** The JSON form of a ModelInput. */
export interface ModelInputJSON {
  chunks: ModelInputChunk[];
}

/** Length of one chunk in tokens. */
export function chunkLength(chunk: ModelInputChunk): number {
  if (chunk.type === 'encoded_text') return chunk.tokens.length;
  if (chunk.expected_tokens === undefined) {
    throw new DataError(`${chunk.type} chunk has no expected_tokens, so its length is unknown`);
  }
  return chunk.expected_tokens;
}

/** An immutable sequence of chunks. */
export class ModelInput {
  readonly chunks: readonly ModelInputChunk[];

  constructor(chunks: readonly ModelInputChunk[]) {
    this.chunks = chunks;
  }

  /** A ModelInput holding one text chunk with `tokens`. */
  static fromInts(tokens: Iterable<number>): ModelInput {
    return new ModelInput([{ type: 'encoded_text', tokens: Array.from(tokens) }]);
  }

  /** An empty ModelInput. */
  static empty(): ModelInput {
    return new ModelInput([]);
  }

  /** Parse the wire form (accepts an object with `chunks`). */
  static fromJSON(json: ModelInputJSON): ModelInput {
    return new ModelInput(json.chunks.map((c) => ({ ...c })));
  }

  /** Total length in tokens (image chunks count their expected tokens). */
  get length(): number {
    let n = 0;
    for (const c of this.chunks) n += chunkLength(c);
    return n;
  }

  /** All tokens; throws if the input holds a non-text chunk. */
  toInts(): number[] {
    const out: number[] = [];
    for (const c of this.chunks) {
      if (c.type !== 'encoded_text') {
        throw new DataError(`toInts() needs text-only input, found a ${c.type} chunk`);
      }
      for (const t of c.tokens) out.push(t);
    }
    return out;
  }

  /** A new ModelInput with `chunk` appended (adjacent text chunks are merged). */
  appendChunk(chunk: ModelInputChunk): ModelInput {
    const last = this.chunks[this.chunks.length - 1];
    if (chunk.type === 'encoded_text' && last?.type === 'encoded_text') {
      return new ModelInput([
        ...this.chunks.slice(0, -1),
        { type: 'encoded_text', tokens: [...last.tokens, ...chunk.tokens] },
      ]);
    }
    return new ModelInput([...this.chunks, chunk]);
  }

  /** A new ModelInput with `tokens` appended as text. */
  appendInts(tokens: Iterable<number>): ModelInput {
    return this.appendChunk({ type: 'encoded_text', tokens: Array.from(tokens) });
  }

  /** A new ModelInput with one token appended. */
  appendInt(token: number): ModelInput {
    return this.appendInts([token]);
  }

  /** A new ModelInput: this followed by `other`. */
  concat(other: ModelInput): ModelInput {
    let out: ModelInput = this;
    for (const c of other.chunks) out = out.appendChunk(c);
    return out;
  }

  /** The wire form. */
  toJSON(): ModelInputJSON {
    return { chunks: this.chunks.map((c) => ({ ...c })) };
  }
}
