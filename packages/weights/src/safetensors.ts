/**
 * Reader and writer for the safetensors format: 8-byte little-endian header length, JSON header, raw data. The one
 * copy in the workspace: the engine reads base models and writes checkpoints with it, the exports read adapters and
 * write merged models with it.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { SafetensorsError } from './errors.js';

/** Storage dtypes the engine reads and writes; compute is always f32. */
export type SafetensorsDtype = 'F32' | 'BF16' | 'F16';

/** One tensor to write: f32 values plus the dtype to store them as. */
export interface TensorToWrite {
  name: string;
  shape: number[];
  data: Float32Array;
  dtype?: SafetensorsDtype;
}

/** Header entry of one stored tensor. */
export interface SafetensorsEntry {
  dtype: string;
  shape: number[];
  dataOffsets: [number, number];
}

const BYTES: Record<SafetensorsDtype, number> = { F32: 4, BF16: 2, F16: 2 };

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** f32 → bf16 bits with round-to-nearest-even (NaN kept quiet). */
export function f32ToBf16(x: number): number {
  f32[0] = x;
  const bits = u32[0]!;
  if ((bits & 0x7fffffff) > 0x7f800000) return ((bits >>> 16) | 0x40) & 0xffff;
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

/** bf16 bits → f32. */
export function bf16ToF32(h: number): number {
  u32[0] = (h & 0xffff) << 16;
  return f32[0]!;
}

/** IEEE half bits → f32. */
export function f16ToF32(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m === 0 ? s * Number.POSITIVE_INFINITY : Number.NaN;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** f32 → IEEE half bits, round-to-nearest-even, overflow to infinity. */
export function f32ToF16(x: number): number {
  f32[0] = x;
  const bits = u32[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  let mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rounded = (mant + half - 1 + ((mant >>> shift) & 1)) >>> shift;
    return sign | rounded;
  }
  const rounded = mant + 0xfff + ((mant >>> 13) & 1);
  if (rounded & 0x800000) {
    // mantissa overflowed into the exponent
    const e2 = e + 1;
    if (e2 >= 31) return sign | 0x7c00;
    return sign | (e2 << 10);
  }
  return sign | (e << 10) | (rounded >>> 13);
}

/** SHA-256 (hex) of the file at `path`, read in 8 MiB blocks. */
export function sha256File(path: string): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(8 * 1024 * 1024);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      hash.update(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * Writes tensors to `path` as one safetensors file (header padded to 8 bytes); returns the file's SHA-256 (hex),
 * computed over the bytes as they are written.
 */
export function writeSafetensors(path: string, tensors: TensorToWrite[], metadata?: Record<string, string>): string {
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  for (const t of tensors) {
    const dtype = t.dtype ?? 'F32';
    const n = t.shape.reduce((a, b) => a * b, 1);
    if (n !== t.data.length) {
      throw new SafetensorsError(
        `tensor ${t.name}: shape [${t.shape}] has ${n} elements but data has ${t.data.length}`,
      );
    }
    const bytes = n * BYTES[dtype];
    header[t.name] = { dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  while ((8 + Buffer.byteLength(json)) % 8 !== 0) json += ' ';
  const headerBytes = Buffer.from(json, 'utf8');
  const hash = createHash('sha256');
  const fd = openSync(path, 'w');
  const write = (bytes: Uint8Array) => {
    hash.update(bytes);
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  };
  try {
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(headerBytes.length));
    write(len);
    write(headerBytes);
    for (const t of tensors) {
      const dtype = t.dtype ?? 'F32';
      if (dtype === 'F32') {
        write(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
        continue;
      }
      const out = new Uint16Array(t.data.length);
      const conv = dtype === 'BF16' ? f32ToBf16 : f32ToF16;
      for (let i = 0; i < out.length; i++) out[i] = conv(t.data[i]!);
      write(new Uint8Array(out.buffer));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** An open safetensors file: header parsed, tensors read on demand. */
export class SafetensorsFile {
  readonly entries: Map<string, SafetensorsEntry>;
  readonly metadata: Record<string, string>;
  private readonly dataStart: number;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    entries: Map<string, SafetensorsEntry>,
    metadata: Record<string, string>,
    dataStart: number,
  ) {
    this.entries = entries;
    this.metadata = metadata;
    this.dataStart = dataStart;
  }

  /** Opens `path` and parses its header. */
  static open(path: string): SafetensorsFile {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (e) {
      throw new SafetensorsError(`cannot open safetensors file ${path}`, { cause: e });
    }
    try {
      const lenBuf = Buffer.alloc(8);
      if (readSync(fd, lenBuf, 0, 8, 0) !== 8) throw new SafetensorsError(`${path}: file shorter than 8 bytes`);
      const len = Number(lenBuf.readBigUInt64LE());
      if (len > 100_000_000) throw new SafetensorsError(`${path}: header length ${len} is not plausible`);
      const hb = Buffer.alloc(len);
      if (readSync(fd, hb, 0, len, 8) !== len) throw new SafetensorsError(`${path}: truncated header`);
      let raw: unknown;
      try {
        raw = JSON.parse(hb.toString('utf8'));
      } catch (e) {
        throw new SafetensorsError(`${path}: header is not valid JSON`, { cause: e });
      }
      if (typeof raw !== 'object' || raw === null) throw new SafetensorsError(`${path}: header is not an object`);
      const entries = new Map<string, SafetensorsEntry>();
      let metadata: Record<string, string> = {};
      for (const [name, v] of Object.entries(raw as Record<string, unknown>)) {
        if (name === '__metadata__') {
          metadata = (v ?? {}) as Record<string, string>;
          continue;
        }
        const e = v as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
        if (typeof e.dtype !== 'string' || !Array.isArray(e.shape) || !Array.isArray(e.data_offsets)) {
          throw new SafetensorsError(`${path}: malformed header entry for tensor ${name}`);
        }
        entries.set(name, {
          dtype: e.dtype,
          shape: e.shape.map(Number),
          dataOffsets: [Number(e.data_offsets[0]), Number(e.data_offsets[1])],
        });
      }
      const dataBytes = fstatSync(fd).size - 8 - len;
      for (const [name, e] of entries) {
        const [from, to] = e.dataOffsets;
        if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || to < from || to > dataBytes) {
          throw new SafetensorsError(
            `${path}: tensor ${name} claims bytes ${from}–${to} but the file holds ${Math.max(0, dataBytes)} data bytes (truncated or corrupt)`,
          );
        }
      }
      return new SafetensorsFile(path, fd, entries, metadata, 8 + len);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  /** Reads one tensor widened to f32. */
  read(name: string): { shape: number[]; data: Float32Array } {
    const e = this.entries.get(name);
    if (!e) throw new SafetensorsError(`${this.path}: no tensor named ${name}`);
    const n = e.shape.reduce((a, b) => a * b, 1);
    const bytes = e.dataOffsets[1] - e.dataOffsets[0];
    const width = e.dtype === 'F32' ? 4 : e.dtype === 'BF16' || e.dtype === 'F16' ? 2 : 0;
    if (width === 0) throw new SafetensorsError(`${this.path}: tensor ${name} has unsupported dtype ${e.dtype}`);
    if (bytes !== n * width) {
      throw new SafetensorsError(`${this.path}: tensor ${name} spans ${bytes} bytes, expected ${n * width}`);
    }
    const buf = new Uint8Array(bytes);
    let got = 0;
    while (got < bytes) {
      const r = readSync(this.fd, buf, got, bytes - got, this.dataStart + e.dataOffsets[0] + got);
      if (r <= 0) throw new SafetensorsError(`${this.path}: tensor ${name} is truncated`);
      got += r;
    }
    const out = new Float32Array(n);
    if (e.dtype === 'F32') {
      new Uint8Array(out.buffer).set(buf);
    } else {
      const h = new Uint16Array(buf.buffer, 0, n);
      if (e.dtype === 'BF16') {
        const o32 = new Uint32Array(out.buffer);
        for (let i = 0; i < n; i++) o32[i] = h[i]! << 16;
      } else {
        for (let i = 0; i < n; i++) out[i] = f16ToF32(h[i]!);
      }
    }
    return { shape: e.shape, data: out };
  }

  /** Releases the file descriptor. */
  close(): void {
    closeSync(this.fd);
  }
}
