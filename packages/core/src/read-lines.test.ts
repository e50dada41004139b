import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLinesSync } from './read-lines.js';

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
