/**
 * The counts of a protobuf forward_backward body, read from its wire bytes before it is decoded: datums, chunks and
 * tokens (each a 400 naming its limit), and loss inputs per datum. Decoding allocates an object per datum and chunk
 * (two bytes each on the wire: a 247-byte zstd body held a million empty datums and took seconds to decode on the
 * thread that answers every client); this walk allocates nothing and stops at the first count past its limit.
 */
import { HttpError } from './http-errors.js';
import { overLimit, type ServiceLimits } from './limits.js';

/** Most `loss_fn_inputs` entries of one datum (every built-in loss takes at most a handful). */
export const MAX_LOSS_INPUTS_PER_DATUM = 64;

function bad(message: string): never {
  throw new HttpError(400, `cannot decode the protobuf ForwardBackwardRequest: ${message}`);
}

/** A reader over `bytes[start, end)`: tags, varints, and skipping a field. */
class Wire {
  constructor(
    readonly bytes: Uint8Array,
    public at: number,
    readonly end: number,
  ) {}

  more(): boolean {
    return this.at < this.end;
  }

  varint(): number {
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.at >= this.end) bad('truncated varint');
      const b = this.bytes[this.at++]!;
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 128;
    }
    return bad('varint longer than 10 bytes');
  }

  /** The next field's number and wire type. */
  tag(): { field: number; type: number } {
    const t = this.varint();
    return { field: Math.floor(t / 8), type: t % 8 };
  }

  /** The extent of a length-delimited field, and moves past it. */
  sub(): { start: number; end: number } {
    const len = this.varint();
    const start = this.at;
    if (len > this.end - start) bad('a field runs past the end of its message');
    this.at = start + len;
    return { start, end: this.at };
  }

  skip(type: number): void {
    if (type === 0) this.varint();
    else if (type === 1) this.at += 8;
    else if (type === 2) this.sub();
    else if (type === 5) this.at += 4;
    else bad(`wire type ${type} is not used by this message`);
    if (this.at > this.end) bad('truncated field');
  }
}

/**
 * Checks the counts of a (decompressed) protobuf ForwardBackwardRequest against `limits` (datums, chunks, tokens)
 * without decoding it. Malformed bytes are left for the decoder when the counts are in bounds.
 */
export function scanForwardBackwardProto(bytes: Uint8Array, limits: ServiceLimits): void {
  const top = new Wire(bytes, 0, bytes.length);
  let datums = 0;
  let chunks = 0;
  let tokens = 0;
  while (top.more()) {
    const { field, type } = top.tag();
    if (field !== 3 || type !== 2) {
      top.skip(type);
      continue;
    }
    if (++datums > limits.maxDatums) {
      throw overLimit('forward_backward_input.data: the number of datums', `${datums}+`, limits.maxDatums, 'maxDatums');
    }
    const d = top.sub();
    const datum = new Wire(bytes, d.start, d.end);
    let lossInputs = 0;
    while (datum.more()) {
      const f = datum.tag();
      if (f.field === 2 && f.type === 2 && ++lossInputs > MAX_LOSS_INPUTS_PER_DATUM) {
        throw new HttpError(
          400,
          `forward_backward_input.data[${datums - 1}].loss_fn_inputs: more than ${MAX_LOSS_INPUTS_PER_DATUM} entries`,
        );
      }
      if (f.field !== 1 || f.type !== 2) {
        datum.skip(f.type);
        continue;
      }
      if (++chunks > limits.maxChunks) {
        throw overLimit(
          'forward_backward_input.data[*].model_input: the number of chunks',
          `${chunks}+`,
          limits.maxChunks,
          'maxChunks',
        );
      }
      const c = datum.sub();
      const chunk = new Wire(bytes, c.start, c.end);
      while (chunk.more()) {
        const g = chunk.tag();
        if (g.field !== 1 || g.type !== 2) {
          chunk.skip(g.type);
          continue;
        }
        const e = chunk.sub();
        const text = new Wire(bytes, e.start, e.end);
        while (text.more()) {
          const h = text.tag();
          if (h.field !== 1 || h.type !== 2) {
            text.skip(h.type);
            continue;
          }
          const t = text.sub();
          tokens += Math.floor((t.end - t.start) / 4); // int32 little-endian
        }
        if (tokens > limits.maxInputTokens) {
          throw overLimit(
            'forward_backward_input.data[*].model_input: the number of tokens',
            `${tokens}+`,
            limits.maxInputTokens,
            'maxInputTokens',
          );
        }
      }
    }
  }
}
