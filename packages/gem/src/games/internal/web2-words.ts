/**
 * The large English word list behind GEM's hardcore word games (see `web2-words-data.ts` for its source).
 */
import { gunzipSync } from 'node:zlib';
import { WEB2_WORDS_GZIP_BASE64 } from './web2-words-data.js';

let cache: readonly string[] | undefined;

/** The 234,937 words of web2 (mixed case, as listed), decoded on first call. */
export function web2Words(): readonly string[] {
  if (cache === undefined) {
    cache = gunzipSync(Buffer.from(WEB2_WORDS_GZIP_BASE64, 'base64')).toString('utf8').split('\n');
  }
  return cache;
}

const byLength = new Map<number, readonly string[]>();

/** The alphabetic, all lower-case web2 words of a length (GEM's Hangman filter), cached per length. */
export function web2LowerWordsOfLength(length: number): readonly string[] {
  let words = byLength.get(length);
  if (words === undefined) {
    words = web2Words().filter((w) => w.length === length && /^[a-z]+$/.test(w));
    byLength.set(length, words);
  }
  return words;
}
