/**
 * Incremental JSONL reading: a reader remembers how far it has read a file and, on each call, reads only the bytes
 * appended since, in bounded chunks (never the whole file at once). Complete lines are parsed; a line that is not
 * JSON is skipped and counted; an unterminated last line waits for its newline (a writer appends whole lines, so it
 * is either being written or was cut off by a killed process: `pendingBytes` says so). A file that shrank (a resumed
 * run truncates `metrics.jsonl` to its checkpoint) is read again from the start, reported by `reset`.
 */
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** Bytes read per `read` call. */
const CHUNK = 1 << 20;

/** One parsed line with its byte range in the file. */
export interface JsonlLine<T = unknown> {
  value: T;
  start: number;
  length: number;
}

/** What one {@link JsonlTail.readNew} found. */
export interface TailRead<T = unknown> {
  lines: JsonlLine<T>[];
  /** The file shrank or was replaced: every earlier line is void; `lines` start from the file's beginning. */
  reset: boolean;
  /** The file does not exist (any more). */
  missing: boolean;
}

/** Options of {@link JsonlTail}. */
export interface JsonlTailOptions<T = unknown> {
  /** A line longer than this is skipped (counted) without being held: bytes. Default 64 MB. */
  maxLineBytes?: number;
  /**
   * Reads one line's bytes (no newline; the buffer is only valid during the call): its value, or `undefined` when the
   * line is malformed (skipped and counted). Default: `JSON.parse` of the line's text. Blank lines never reach it.
   */
  decode?: (line: Buffer) => T | undefined;
}

/** Reads the lines appended to a JSONL file since the last call. */
export class JsonlTail<T = unknown> {
  /** Bytes consumed (through the last newline seen). */
  offset = 0;
  /** Complete lines seen (parsed or skipped). */
  lineCount = 0;
  /** Lines skipped because they were not JSON (or longer than the limit). */
  skipped = 0;
  /** Bytes after the last newline (an unterminated line). */
  pendingBytes = 0;
  private ino = -1;
  private readonly maxLineBytes: number;
  private readonly decode: ((line: Buffer) => T | undefined) | undefined;

  constructor(
    readonly path: string,
    options: JsonlTailOptions<T> = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? 64 * 1024 * 1024;
    this.decode = options.decode;
  }

  /** The lines appended since the last call (parsed, or skipped and counted). */
  async readNew(): Promise<TailRead<T>> {
    let size: number;
    let ino: number;
    try {
      // Synchronous: a stat is microseconds, and an index polls hundreds of files that mostly did not change.
      const st = statSync(this.path);
      size = st.size;
      ino = st.ino;
    } catch {
      return { lines: [], reset: false, missing: true };
    }
    let reset = false;
    if (size < this.offset + this.pendingBytes || (this.ino !== -1 && ino !== this.ino)) {
      reset = this.offset > 0 || this.pendingBytes > 0;
      this.offset = 0;
      this.lineCount = 0;
      this.skipped = 0;
    }
    this.ino = ino;
    this.pendingBytes = 0;
    const lines: JsonlLine<T>[] = [];
    if (size <= this.offset) return { lines, reset, missing: false };
    const fh = await open(this.path, 'r');
    try {
      let pos = this.offset;
      let carry: Buffer[] = [];
      let carryLen = 0;
      let lineStart = pos;
      let overlong = false;
      // A small file gets a buffer of its size, not a whole chunk.
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, size - pos));
      while (pos < size) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
        if (bytesRead === 0) break;
        let from = 0;
        for (;;) {
          const nl = buf.indexOf(10, from);
          if (nl < 0 || nl >= bytesRead) break;
          const piece = buf.subarray(from, nl);
          const length = pos + nl - lineStart;
          if (!overlong) {
            const whole = carryLen === 0 ? piece : Buffer.concat([...carry, piece]);
            this.take(whole, lineStart, length, lines);
          } else {
            this.lineCount++;
            this.skipped++;
          }
          carry = [];
          carryLen = 0;
          overlong = false;
          from = nl + 1;
          lineStart = pos + from;
        }
        if (from < bytesRead && !overlong) {
          carry.push(Buffer.from(buf.subarray(from, bytesRead)));
          carryLen += bytesRead - from;
          if (carryLen > this.maxLineBytes) {
            overlong = true;
            carry = [];
            carryLen = 0;
          }
        }
        pos += bytesRead;
      }
      this.offset = lineStart;
      this.pendingBytes = pos - lineStart;
    } finally {
      await fh.close();
    }
    return { lines, reset, missing: false };
  }

  private take(bytes: Buffer, start: number, length: number, out: JsonlLine<T>[]): void {
    this.lineCount++;
    if (this.decode !== undefined) {
      if (isBlank(bytes)) return;
      const value = this.decode(bytes);
      if (value === undefined) this.skipped++;
      else out.push({ value, start, length });
      return;
    }
    const text = bytes.toString('utf8').trim();
    if (text === '') return;
    try {
      out.push({ value: JSON.parse(text) as T, start, length });
    } catch {
      this.skipped++;
    }
  }
}

/** Whether a line holds only JSON whitespace. */
function isBlank(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10) return false;
  }
  return true;
}

/** Reads `length` bytes at `start` of `path` (one line located by an index). */
export async function readRange(path: string, start: number, length: number): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, start);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}
