/**
 * NLTK's English word list `en`, behind GEM's hardcore word games (see `nltk-en-words-data.ts` for its source and
 * licence).
 */
import { gunzipSync } from 'node:zlib';
import { NLTK_EN_WORDS_GZIP_BASE64 } from './nltk-en-words-data.js';

let cache: readonly string[] | undefined;

/**
 * The 235,886 words of NLTK's `words.words("en")` (mixed case, in the corpus's order), decoded on first call. NLTK
 * reads the file line by line and drops empty lines; so does this.
 */
export function nltkEnWords(): readonly string[] {
  if (cache === undefined) {
    cache = gunzipSync(Buffer.from(NLTK_EN_WORDS_GZIP_BASE64, 'base64'))
      .toString('utf8')
      .split('\n')
      .filter((w) => w.length > 0);
  }
  return cache;
}

const byLength = new Map<number, readonly string[]>();

/** The alphabetic, all lower-case words of a length (GEM's Hangman filter `isalpha() and islower()`), cached. */
export function nltkEnLowerWordsOfLength(length: number): readonly string[] {
  let words = byLength.get(length);
  if (words === undefined) {
    words = nltkEnWords().filter((w) => w.length === length && /^[a-z]+$/.test(w));
    byLength.set(length, words);
  }
  return words;
}
