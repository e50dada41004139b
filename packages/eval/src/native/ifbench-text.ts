/**
 * The text analysis IFBench's checkers take from NLTK and syllapy, written here without their data files (which
 * this project cannot ship or download): these are stand-ins, and a checker that uses them can give another verdict
 * than IFBench's on some replies (the README lists those checkers).
 *
 * - {@link splitSentences} for `nltk.sent_tokenize` (Punkt's English model): a sentence ends at `.`, `?` or `!`
 *   (with any closing quotes or brackets after it) followed by whitespace, unless the word before a period is a
 *   common abbreviation, an initial or a number's decimal point; newlines alone do not end a sentence (as in Punkt).
 * - {@link wordTokenize} for `nltk.word_tokenize` (the Treebank tokenizer): whitespace pieces with leading and
 *   trailing punctuation split off (a run of periods kept together; a period kept on a known abbreviation), English
 *   clitics split (`do` `n't`, `it` `'s`), and quotes turned into Treebank's ``` `` ``` and `''`.
 * - {@link ENGLISH_STOPWORDS} for NLTK's English stopword list (its 179-word version).
 * - {@link countSyllables} for `syllapy.count`: vowel groups, a final silent `e` dropped, at least one for a word.
 */
import { PUNCTUATION, pySplit } from './py-text.js';

const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'inc',
  'ltd',
  'co',
  'corp',
  'no',
  'fig',
  'approx',
  'dept',
  'est',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'u.s',
  'u.k',
  'a.m',
  'p.m',
]);

const CLOSERS = '"\')]}\u201d\u2019';

/** Whether the period at `text[i]` ends an abbreviation or an initial rather than a sentence. */
function abbreviationBefore(text: string, i: number): boolean {
  let j = i;
  while (j > 0 && !/\s/u.test(text[j - 1]!)) j--;
  const word = text
    .slice(j, i)
    .replace(/^[("'[\u201c\u2018]+/u, '')
    .toLowerCase();
  if (word === '') return false;
  if (ABBREVIATIONS.has(word)) return true;
  // A single letter ("J. Smith") or letters with inner periods ("e.g", "U.S").
  return /^\p{L}$/u.test(word) || /^(\p{L}\.)+\p{L}$/u.test(word);
}

/** Sentences of `text` (stand-in for `nltk.sent_tokenize`; see the module note), each trimmed, none empty. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '.' || c === '?' || c === '!') {
      let end = i + 1;
      while (end < text.length && '.?!'.includes(text[end]!)) end++;
      while (end < text.length && CLOSERS.includes(text[end]!)) end++;
      const atEnd = end >= text.length;
      const spaced = atEnd || /\s/u.test(text[end]!);
      const single = end === i + 1 && c === '.';
      if (spaced && !atEnd && !(single && abbreviationBefore(text, i))) {
        const s = text.slice(start, end).trim();
        if (s !== '') out.push(s);
        start = end;
      }
      i = end;
      continue;
    }
    i++;
  }
  const rest = text.slice(start).trim();
  if (rest !== '') out.push(rest);
  return out;
}

const CLITIC = /^(.+?)(n't|'s|'re|'ve|'ll|'d|'m)$/iu;

/** Tokens of `text` (stand-in for `nltk.word_tokenize`; see the module note). */
export function wordTokenize(text: string): string[] {
  const tokens: string[] = [];
  const quote = (c: string, opening: boolean) => (c === '"' ? (opening ? '``' : "''") : c);
  for (const piece of pySplit(text)) {
    const chars = [...piece];
    const lead: string[] = [];
    while (chars.length > 0 && PUNCTUATION.includes(chars[0]!) && chars[0] !== '.') lead.push(chars.shift()!);
    const trail: string[] = [];
    while (chars.length > 0 && PUNCTUATION.includes(chars.at(-1)!)) {
      if (chars.at(-1) === '.') {
        let k = chars.length;
        while (k > 0 && chars[k - 1] === '.') k--;
        const body = chars.slice(0, k).join('');
        if (chars.length - k === 1 && (ABBREVIATIONS.has(body.toLowerCase()) || /^\p{L}$/u.test(body))) break;
        trail.unshift(chars.slice(k).join(''));
        chars.length = k;
        continue;
      }
      trail.unshift(chars.pop()!);
    }
    tokens.push(...lead.map((c) => quote(c, true)));
    const word = chars.join('');
    if (word !== '') {
      const m = CLITIC.exec(word);
      if (m) tokens.push(m[1]!, m[2]!);
      else tokens.push(word);
    }
    tokens.push(...trail.map((c) => quote(c, false)));
  }
  return tokens;
}

/** NLTK's English stopwords (the 179-word list). */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself ' +
    'it its itself they them their theirs themselves what which who whom this that these those am is are was were be ' +
    'been being have has had having do does did doing a an the and but if or because as until while of at by for ' +
    'with about against between into through during before after above below to from up down in out on off over ' +
    'under again further then once here there when where why how all any both each few more most other some such no ' +
    'nor not only own same so than too very s t can will just don should now d ll m o re ve y ain aren couldn didn ' +
    'doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn'
  ).split(' '),
);

/** Syllables of one word (stand-in for `syllapy.count`; see the module note). */
export function countSyllables(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (w === '') return 0;
  const groups = w.match(/[aeiouy]+/g)?.length ?? 0;
  let n = groups;
  if (w.endsWith('e') && !w.endsWith('le') && !w.endsWith('ee') && groups > 1) n--;
  return Math.max(1, n);
}
