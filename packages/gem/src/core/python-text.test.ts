import { describe, expect, it } from 'vitest';
import { pyDigitValue, pyInt, pyLower, pyRegExp, pySplit, pyUpper } from './python-text.js';

// Facts of CPython 3.11's `re`, `int` and `str` (checked against the interpreter when written).
describe("Python's text rules as GEM's games meet them", () => {
  it('\\s is str.isspace(): U+001C–U+001F, U+0085 and Unicode spaces, but not U+FEFF', () => {
    const re = pyRegExp(String.raw`a\sb`);
    for (const sp of [' ', '\t', '\u001c', '\u001d', '\u001e', '\u001f', '\u0085', '\u00a0', '\u2003', '\u3000']) {
      expect(`a${sp}b`.match(re)?.[0], JSON.stringify(sp)).toBe(`a${sp}b`);
    }
    expect('a\ufeffb'.match(re)).toBeNull();
    expect(pySplit('1\u001c2\u00853  4\ufeff5')).toEqual(['1', '2', '3', '4\ufeff5']);
  });

  it('\\d and int() take every decimal digit, exactly, up to 4300 digits', () => {
    expect('５٥𝟓०'.match(pyRegExp(String.raw`\d+`))?.[0]).toBe('５٥𝟓०');
    expect(['５', '٥', '𝟓', '०', '9'].map(pyDigitValue)).toEqual([5, 5, 5, 0, 9]);
    expect(pyInt('99999999999999999999')).toBe(99999999999999999999n);
    expect(pyInt('00１２')).toBe(12n);
    expect(pyInt('1'.repeat(4300))).toBe(BigInt('1'.repeat(4300)));
    expect(pyInt('1'.repeat(4301))).toBeUndefined();
    expect(pyInt('12a')).toBeUndefined();
  });

  it("IGNORECASE adds Python's equivalents: ı İ for i, K (Kelvin) for k, ſ for s", () => {
    const hangman = pyRegExp(String.raw`\\boxed{([a-zA-Z]+)}`, { ignoreCase: true });
    expect([...'\\BOXED{E} \\Boxed{ı} \\boxed{ſ} \\boxed{\u212a}'.matchAll(hangman)].map((m) => m[1])).toEqual([
      'E',
      'ı',
      'ſ',
      '\u212a',
    ]);
    const move = pyRegExp(String.raw`\\boxed\{(up|down|left|right)\}`, { ignoreCase: true });
    expect([...'\\boxed{rıght} \\boxed{RİGHT} \\boxed{ſtop}'.matchAll(move)].map((m) => m[1])).toEqual([
      'rıght',
      'RİGHT',
    ]);
    // Without IGNORECASE the pattern is case-sensitive.
    expect(pyRegExp(String.raw`\\boxed{(up)}`).test('\\boxed{UP}')).toBe(false);
  });

  it('upper() and lower() use the full case mappings', () => {
    expect(pyUpper('ſıß')).toBe('SISS');
    expect(pyLower('RİGHT')).toBe('ri\u0307ght');
    expect(pyUpper('\u212a')).toBe('\u212a');
  });

  it('refuses a pattern feature it does not translate', () => {
    expect(() => pyRegExp(String.raw`(?=a)`)).toThrow(/unsupported/);
    expect(() => pyRegExp(String.raw`\w+`)).toThrow(/unsupported escape/);
    expect(() => pyRegExp(String.raw`\d{2}`)).toThrow(/unsupported quantifier/);
  });
});
