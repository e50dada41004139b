import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataError } from './errors.js';
import { parseJsonLine, readLinesSync } from './read-lines.js';

describe('readLinesSync', () => {
  const file = (text: string) => {
    const p = join(mkdtempSync(join(tmpdir(), 'cookbook-lines-')), 'f.txt');
    writeFileSync(p, text);
    return p;
  };

  it('numbers lines, drops CRLF endings, keeps a last line without a newline and multi-byte characters split across reads', () => {
    const p = file('a\r\n\nλx\nlast');
    expect([...readLinesSync(p, 3)]).toEqual([
      { text: 'a', line: 1 },
      { text: '', line: 2 },
      { text: 'λx', line: 3 },
      { text: 'last', line: 4 },
    ]);
    expect([...readLinesSync(file(''))]).toEqual([]);
    expect([...readLinesSync(file('one\n'))]).toEqual([{ text: 'one', line: 1 }]);
  });
});

describe('parseJsonLine', () => {
  it('parses a line; invalid JSON is a DataError naming the file and line, the parser, and what a line holds', () => {
    expect(parseJsonLine('{"a": [1, 2]}', { file: 'd.jsonl', line: 3 })).toEqual({ a: [1, 2] });
    const refused = (expected?: string): DataError => {
      try {
        parseJsonLine('{"a": [', { file: 'd.jsonl', line: 7 }, expected);
      } catch (err) {
        if (err instanceof DataError) return err;
        throw err;
      }
      throw new Error('expected a DataError');
    };
    const plain = refused();
    expect(plain.message).toMatch(/^d\.jsonl:7: invalid JSON \(.+\)$/);
    expect(plain).toMatchObject({ file: 'd.jsonl', line: 7 });
    expect(plain.cause).toBeInstanceOf(SyntaxError);
    expect(refused('expected one {"messages": [...]} object per line').message).toMatch(
      /^d\.jsonl:7: invalid JSON \(.+\); expected one \{"messages": \[\.\.\.\]\} object per line$/,
    );
  });
});
