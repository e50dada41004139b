import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { DataError } from './errors.js';

/** One line of a text file, without its line ending, with its 1-based number. */
export interface NumberedLine {
  text: string;
  line: number;
}

/**
 * Reads a file line by line with a fixed-size buffer, synchronously, so files larger than memory can be streamed
 * and a dataset's `getBatch` can stay synchronous. Multi-byte UTF-8 characters split across reads are kept whole.
 */
export function* readLinesSync(path: string, chunkBytes = 1 << 16): Generator<NumberedLine> {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(chunkBytes);
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let lineNo = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, chunkBytes, null);
      if (n === 0) break;
      pending += decoder.write(buf.subarray(0, n));
      let start = 0;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n', start)) {
        const raw = pending.slice(start, nl);
        lineNo++;
        yield { text: raw.endsWith('\r') ? raw.slice(0, -1) : raw, line: lineNo };
        start = nl + 1;
      }
      pending = pending.slice(start);
    }
    pending += decoder.end();
    if (pending.length > 0) yield { text: pending.endsWith('\r') ? pending.slice(0, -1) : pending, line: lineNo + 1 };
  } finally {
    closeSync(fd);
  }
}

/**
 * One line of a JSONL file, parsed. Invalid JSON is a {@link DataError} naming `where` (file and line) with the
 * parser's message and, when given, what a line should hold (`expected`: `expected one {"messages": [...]} object
 * per line`, say).
 */
export function parseJsonLine(text: string, where: { file?: string; line?: number }, expected?: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const why = `invalid JSON (${error instanceof Error ? error.message : String(error)})`;
    throw new DataError(expected === undefined ? why : `${why}; ${expected}`, { ...where, cause: error });
  }
}
