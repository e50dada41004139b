import { describe, expect, it } from 'vitest';
import { escapeControlChars } from './terminal-text.js';

describe('escapeControlChars', () => {
  it('shows ESC, BEL, CR and C1 controls as escapes and keeps text, tabs and newlines', () => {
    expect(escapeControlChars('bad line: \u001b[2J\u0007x\r\u009b ok\tä 漢\nnext')).toBe(
      'bad line: \\x1b[2J\\x07x\\x0d\\x9b ok\tä 漢\nnext',
    );
    expect(escapeControlChars('a\u202eb')).toBe('a\\u202eb');
    expect(escapeControlChars('a\nb\tc', { singleLine: true })).toBe('a\\nb\\tc');
  });
});
