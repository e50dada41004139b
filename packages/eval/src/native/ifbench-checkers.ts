/**
 * IFBench's 58 instruction checkers (AllenAI's IFBench, `instructions.py`), each one's rule written here in
 * TypeScript with Python's string semantics (`py-text.ts`). A checker is built from the instruction's kwargs (the
 * dataset's, with nulls dropped, as upstream's benchmark passes them) and then checks a reply.
 *
 * Checkers that use NLTK's sentence or word tokenizer, its stopword list or syllapy run on this project's stand-ins
 * (`ifbench-text.ts`), so their verdicts can differ from IFBench's on some replies: {@link STAND_IN_CHECKERS} names
 * them. One checker is not ported: `words:start_verb` needs NLTK's part-of-speech tagger model; an example that uses
 * it is an error of the benchmark naming it ({@link UNPORTED_CHECKERS}), never a guessed verdict.
 */
import { CookbookError } from '@cookbook/core';
import { countSyllables, ENGLISH_STOPWORDS, splitSentences, wordTokenize } from './ifbench-text.js';
import {
  asciiFold,
  firstChar,
  isAlnumChar,
  isAlpha,
  isDigit,
  isLower,
  isSpace,
  isUpper,
  matchPy,
  PUNCTUATION,
  PY_SPACE,
  PY_WORD_CHAR,
  PyIndexError,
  pyCount,
  pyCsvRows,
  pyLen,
  pySlice,
  pySplit,
  pyStrip,
  removePunctuation,
  wordBounded,
} from './py-text.js';

/** An instruction's arguments (the dataset's kwargs, nulls dropped). */
export type IfbenchKwargs = Readonly<Record<string, unknown>>;
/** A built checker: does the reply follow the instruction? */
export type IfbenchCheck = (response: string) => boolean;
/** Builds a checker from its kwargs; throws where IFBench's `build_description` raises. */
export type IfbenchChecker = (kwargs: IfbenchKwargs) => IfbenchCheck;

/** A kwarg IFBench requires that is missing, or one of the wrong type. */
export class IfbenchKwargError extends CookbookError {
  override name = 'IfbenchKwargError';
}

function num(kw: IfbenchKwargs, key: string): number {
  const v = kw[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new IfbenchKwargError(`kwarg "${key}" must be a number, got ${JSON.stringify(v)}`);
  }
  return v;
}

function str(kw: IfbenchKwargs, key: string): string {
  const v = kw[key];
  if (typeof v !== 'string') throw new IfbenchKwargError(`kwarg "${key}" must be a string, got ${JSON.stringify(v)}`);
  return v;
}

const PUNCT_SPACE = `${PUNCTUATION} `;
const stripPunct = (s: string) => pyStrip(s, PUNCT_SPACE);
/** `len(nltk.RegexpTokenizer(r"\w+").tokenize(text))`. */
const wordTokens = (s: string) => s.match(/[\p{L}\p{N}_]+/gu) ?? [];
const endsWith = (s: string, c: string) => s.endsWith(c);
const reverse = (s: string) => [...s].reverse().join('');

const PERSON_NAMES = (
  'Emma Liam Sophia Jackson Olivia Noah Ava Lucas Isabella Mason Mia Ethan Charlotte Alexander Amelia Benjamin ' +
  'Harper Leo Zoe Daniel Chloe Samuel Lily Matthew Grace Owen Abigail Gabriel Ella Jacob Scarlett Nathan Victoria ' +
  'Elijah Layla Nicholas Audrey David Hannah Christopher Penelope Thomas Nora Andrew Aria Joseph Claire Ryan ' +
  'Stella Jonathan'
).split(' ');

const PRONOUNS = new Set(
  (
    'i me we us you he him she her it they them my mine our ours your yours his hers its their theirs myself ' +
    'ourselves yourself yourselves himself herself itself themselves this that these those who whom whose which ' +
    'what whoever whomever whatever whichever anybody anyone anything everybody everyone everything nobody ' +
    'nothing somebody someone something each either neither both all some any none'
  ).split(' '),
);

const EUROPEAN_CAPITALS = (
  'Reykjavik Helsinki Oslo Tallinn Stockholm Riga Moscow Copenhagen Vilnius Minsk Dublin Berlin Amsterdam Warsaw ' +
  'London Brussels Prague Luxembourg Paris Vienna Bratislava Budapest Vaduz Chisinau Bern Ljubljana Zagreb'
).split(' ');

const PRIMES = new Set([
  2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97,
]);

// Python's `\s` and `\w` (Unicode) in IFBench's patterns.
const MCQ_SPLIT = new RegExp(`\\n*(?:Question \\p{Nd}+[.|):;]?[${PY_SPACE}]*)`, 'u');
const MCQ_OPTION = new RegExp(`^[A-Ea-e][.|)][${PY_SPACE}]*${PY_WORD_CHAR}`, 'u');
const QUOTED_SPECIAL = new RegExp(`^"[^\\n]*[^\\p{L}\\p{N}_${PY_SPACE}][^\\n]*"`, 'u');

/** Sentence-type counts over the stand-in sentences. */
function sentenceTypes(value: string) {
  const sentences = splitSentences(value);
  return {
    declarative: sentences.filter((s) => endsWith(s, '.')).length,
    interrogative: sentences.filter((s) => endsWith(s, '?')).length,
    exclamatory: sentences.filter((s) => endsWith(s, '!')).length,
  };
}

/** Whether a character is an emoji (the `emoji` package's `is_emoji` on one code point). */
function isEmoji(c: string): boolean {
  return /^\p{Extended_Pictographic}$/u.test(c) || /^\p{Emoji_Presentation}$/u.test(c);
}

/** Python's `(a) == (b)` for two lists of strings. */
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The ported checkers by instruction id. */
export const IFBENCH_CHECKERS: Readonly<Record<string, IfbenchChecker>> = {
  'count:word_count_range': (kw) => {
    const min = num(kw, 'min_words');
    const max = num(kw, 'max_words');
    return (v) => {
      const n = wordTokens(v).length;
      return min <= n && n <= max;
    };
  },
  'count:unique_word_count': (kw) => {
    const n = num(kw, 'N');
    return (v) => new Set(pySplit(v.toLowerCase()).map(stripPunct)).size >= n;
  },
  'ratio:stop_words': (kw) => {
    const pct = num(kw, 'percentage');
    return (v) => {
      const tokens = wordTokens(v);
      if (tokens.length === 0) return false;
      const stop = tokens.filter((t) => ENGLISH_STOPWORDS.has(t.toLowerCase())).length;
      return (stop / tokens.length) * 100 <= pct;
    };
  },
  'ratio:sentence_type': () => (v) => {
    const t = sentenceTypes(v);
    return t.declarative === 2 * t.interrogative;
  },
  'ratio:sentence_balance': () => (v) => {
    const t = sentenceTypes(v);
    return t.declarative === t.interrogative && t.interrogative === t.exclamatory;
  },
  'count:conjunctions': (kw) => {
    const n = num(kw, 'small_n');
    const conj = new Set(['and', 'but', 'for', 'nor', 'or', 'so', 'yet']);
    // IFBench counts distinct words as written (case and punctuation kept) whose stripped lower form is a conjunction.
    return (v) => new Set(pySplit(v).filter((w) => conj.has(stripPunct(w).toLowerCase()))).size >= n;
  },
  'count:person_names': (kw) => {
    const n = num(kw, 'N');
    return (v) => PERSON_NAMES.filter((name) => new RegExp(wordBounded(name), 'u').test(v)).length >= n;
  },
  'ratio:overlap': (kw) => {
    const reference = str(kw, 'reference_text');
    const pct = num(kw, 'percentage');
    const trigrams = (s: string) => {
      const c = [...s];
      const out = new Set<string>();
      for (let i = 0; i + 3 <= c.length; i++) out.add(JSON.stringify(c.slice(i, i + 3)));
      return out;
    };
    const ref = trigrams(reference);
    return (v) => {
      const grams = trigrams(v);
      if (grams.size === 0) return false;
      let shared = 0;
      for (const g of grams) if (ref.has(g)) shared++;
      const overlap = (shared / grams.size) * 100;
      return pct - 2 <= overlap && overlap <= pct + 2;
    };
  },
  'count:numbers': (kw) => {
    const n = num(kw, 'N');
    return (v) => (removePunctuation(v).match(/\p{Nd}+/gu) ?? []).length === n;
  },
  'words:alphabet': () => (v) => {
    const words = pySplit(pyStrip(removePunctuation(v), PUNCT_SPACE));
    if (words.length === 0) return false;
    const alphabet = 'abcdefghijklmnopqrstuvwxyz';
    let letter = firstChar(words[0]!).toLowerCase();
    if (!alphabet.includes(letter) || letter.length !== 1) return false;
    for (const raw of words.slice(1)) {
      const w = stripPunct(raw).toLowerCase();
      if (w === '') continue;
      letter = alphabet[(alphabet.indexOf(letter) + 1) % 26]!;
      if (firstChar(w) !== letter) return false;
    }
    return true;
  },
  'words:vowel': () => (v) => {
    const paragraphs = pyStrip(v).split('\n');
    if (paragraphs.length !== 1) return false;
    return new Set([...paragraphs[0]!.toLowerCase()].filter((c) => 'aeiou'.includes(c))).size <= 3;
  },
  'words:consonants': () => (v) => {
    const consonants = 'bcdfghjklmnpqrstvwxyz';
    for (const word of pySplit(pyStrip(v.toLowerCase()))) {
      const c = [...word];
      let cluster = false;
      for (let i = 0; i + 1 < c.length; i++) {
        if (consonants.includes(c[i]!) && consonants.includes(c[i + 1]!)) {
          cluster = true;
          break;
        }
      }
      if (!cluster) return false;
    }
    return true;
  },
  'sentence:alliteration_increment': () => (v) => {
    let prev = -1;
    for (const sentence of splitSentences(v)) {
      const words = pySplit(sentence.toLowerCase())
        .map((w) => pyStrip(w, PUNCT_SPACE, 'left'))
        .filter((w) => w !== '');
      let run = 0;
      let inRun = false;
      for (let i = 0; i + 1 < words.length; i++) {
        if (firstChar(words[i]!) === firstChar(words[i + 1]!)) {
          run += inRun ? 1 : 2;
          inRun = true;
        } else inRun = false;
      }
      if (run <= prev) return false;
      prev = run;
    }
    return true;
  },
  'words:palindrome': () => (v) =>
    pySplit(removePunctuation(v).toLowerCase()).filter((w) => w === reverse(w) && pyLen(w) >= 5).length >= 10,
  'count:punctuation': () => (v) => {
    if (!(v.includes('!?') || v.includes('?!') || v.includes('\u203d'))) return false;
    let rest = v.replace('?!', '');
    if (rest.length === v.length) rest = v.replace('!?', '');
    const needed = new Set(['.', ',', '!', '?', ';', ':']);
    for (const c of rest) needed.delete(c);
    return needed.size === 0;
  },
  'format:parentheses': () => (v) => {
    let levels: string[] = [];
    let maxDepth = 0;
    const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
    for (const c of v) {
      if ('([{'.includes(c)) {
        levels.push(c);
        maxDepth = Math.max(maxDepth, levels.length);
      } else if (')]}'.includes(c)) {
        if (levels.length > 0 && levels.at(-1) === pairs[c]) {
          levels.pop();
          if (maxDepth >= 5 && levels.length < maxDepth) return true;
        } else {
          levels = [];
          maxDepth = 0;
        }
      }
    }
    return false;
  },
  'format:quotes': () => (v) => {
    const levels: string[] = [];
    let reached = 0;
    let depth = 0;
    for (const c of v) {
      if (levels.length !== 0 && c === levels.at(-1)) {
        levels.pop();
        depth--;
        if (reached - depth >= 3) return true;
      } else if (c === '"' || c === "'") {
        levels.push(c);
        depth++;
        reached = Math.max(reached, depth);
      }
    }
    return false;
  },
  'words:prime_lengths': () => (v) => pySplit(removePunctuation(v)).every((w) => PRIMES.has(pyLen(w))),
  'format:options': (kw) => {
    const options = typeof kw.options === 'string' ? kw.options : undefined;
    if (options === undefined) throw new IfbenchKwargError('kwarg "options" must be a string');
    const strict = /^\W*[aA]\W*[bB]\W*[cC]\W*/u.test(options);
    const sep = options.includes('/') ? '/' : options.includes('or') ? 'or' : ',';
    const list = options.split(sep).map((o) => pyStrip(o));
    return (v) => {
      if (strict) return list.includes(v);
      const value = stripPunct(v).toLowerCase();
      return list.some((o) => stripPunct(o).toLowerCase() === value);
    };
  },
  'format:newline': () => (v) => {
    const value = removePunctuation(v);
    const lines = pyStrip(value)
      .split('\n')
      .filter((l) => l !== '');
    return lines.length === pySplit(pyStrip(value)).length;
  },
  'format:emoji': () => (v) => {
    const sentences = splitSentences(v);
    for (let i = 0; i < sentences.length; i++) {
      const stripped = [...pyStrip(removePunctuation(sentences[i]!))];
      if (stripped.length === 0) return false;
      const last = stripped.at(-1)!;
      const secondLast = stripped.length > 1 ? stripped.at(-2)! : last;
      if (!isEmoji(last) && !isEmoji(secondLast)) {
        if (i < sentences.length - 1) {
          const next = [...pyStrip(removePunctuation(sentences[i + 1]!))];
          if (next.length === 0) return false;
          if (!isEmoji(next[0]!)) return false;
        } else return false;
      }
    }
    return true;
  },
  'ratio:sentence_words': () => (v) => {
    const sentences = splitSentences(v);
    if (sentences.length !== 3) return false;
    const n = pyLen(pyStrip(sentences[0]!));
    return sentences.every((s) => pyLen(pyStrip(s)) === n);
  },
  'count:words_japanese': (kw) => {
    const n = num(kw, 'N');
    const japanese = /[\u3040-\u30ff\u4e00-\u9fff]/u;
    return (v) =>
      pySplit(v).every((raw, i) => {
        const w = stripPunct(raw);
        return !((i + 1) % n === 0 && w !== '' && !isDigit(w)) || japanese.test(w);
      });
  },
  'words:repeats': (kw) => {
    const n = num(kw, 'small_n');
    return (v) => {
      const counts = new Map<string, number>();
      for (const w of pySplit(removePunctuation(v.toLowerCase()))) counts.set(w, (counts.get(w) ?? 0) + 1);
      return [...counts.values()].every((c) => c <= n);
    };
  },
  'sentence:keyword': (kw) => {
    const word = str(kw, 'word');
    const n = num(kw, 'N');
    const re = new RegExp(wordBounded(word), 'iu');
    return (v) => {
      const sentences = splitSentences(v);
      if (sentences.length < n) return false;
      const s = sentences.at(Math.trunc(n - 1));
      if (s === undefined) throw new PyIndexError('list index out of range');
      return re.test(s);
    };
  },
  'count:pronouns': (kw) => {
    const n = num(kw, 'N');
    return (v) => wordTokenize(v.replaceAll('/', ' ').toLowerCase()).filter((w) => PRONOUNS.has(w)).length >= n;
  },
  'words:odd_even_syllables': () => (v) => {
    const parity = pySplit(removePunctuation(v).toLowerCase())
      .filter((w) => pyStrip(w) !== '')
      .map((w) => countSyllables(w) % 2);
    return parity.every((p, i) => i + 1 >= parity.length || p !== parity[i + 1]);
  },
  'words:last_first': () => (v) => {
    const sentences = splitSentences(v);
    for (let i = 0; i + 1 < sentences.length; i++) {
      const last = pySplit(pyStrip(sentences[i]!, PUNCT_SPACE, 'right'));
      const first = pySplit(pyStrip(sentences[i + 1]!, PUNCT_SPACE, 'left'));
      if (last.length === 0 || first.length === 0) return false;
      if (last.at(-1)!.toLowerCase() !== first[0]!.toLowerCase()) return false;
    }
    return true;
  },
  'words:paragraph_last_first': () => (v) => {
    for (const raw of v.split('\n')) {
      const p = pyStrip(raw).toLowerCase();
      if (p === '') continue;
      const words = pySplit(stripPunct(p));
      if (words.length === 0) continue;
      if (words[0] !== words.at(-1)) return false;
    }
    return true;
  },
  'sentence:increment': (kw) => {
    const inc = num(kw, 'small_n');
    return (v) => {
      const sentences = splitSentences(v);
      if (sentences.length === 0) throw new PyIndexError('list index out of range');
      const count = (s: string) => pySplit(pyStrip(removePunctuation(s))).length;
      let prev = count(sentences[0]!);
      for (const s of sentences.slice(1)) {
        const n = count(s);
        if (n !== prev + inc) return false;
        prev = n;
      }
      return true;
    };
  },
  'words:no_consecutive': () => (v) => {
    const words = pySplit(removePunctuation(v.toLowerCase()));
    for (let i = 0; i + 1 < words.length; i++) if (firstChar(words[i]!) === firstChar(words[i + 1]!)) return false;
    return true;
  },
  'format:line_indent': () => (v) => {
    // IFBench removes blank lines from the list while iterating over it, which skips the line after each one removed.
    const lines = v.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (pyStrip(lines[i]!) === '') {
        const first = lines.indexOf(lines[i]!);
        lines.splice(first, 1);
      }
    }
    const indent = (l: string) => pyLen(l) - pyLen(pyStrip(l, ' ', 'left'));
    for (let i = 0; i + 1 < lines.length; i++) if (indent(lines[i + 1]!) <= indent(lines[i]!)) return false;
    return true;
  },
  'format:quote_unquote': () => (v) => {
    const value = pySplit(v.replaceAll("'\"'", '')).join('');
    if (value.includes('""')) return false;
    const stripped = pyStrip(value, `0123456789${PUNCTUATION.replace('"', '')}`);
    return !(stripped !== '' && stripped.endsWith('"'));
  },
  'format:list': (kw) => {
    const sep = typeof kw.sep === 'string' ? kw.sep : undefined;
    if (sep === undefined) throw new IfbenchKwargError('kwarg "sep" must be a string');
    return (v) => {
      if (sep === '') return pyLen(v) + 1 >= 2;
      return v.split(sep).length - 1 >= 2;
    };
  },
  'format:thesis': () => (v) => {
    let index = v.indexOf('<i>');
    if (index === -1) {
      index = v.indexOf('<em>');
      if (index === -1) return false;
    }
    const value = v.slice(index);
    let end = value.indexOf('</i>');
    if (end === -1) {
      end = value.indexOf('</em>');
      if (end === -1) return false;
    }
    const thesis = value.slice(3, Math.max(3, end));
    if (pyStrip(thesis) === '') return false;
    return pyStrip(value.slice(end + 4)) !== '';
  },
  'format:sub-bullets': () => (v) =>
    v
      .split('*')
      .slice(1)
      .every((b) => b.includes('-')),
  'format:no_bullets_bullets': () => (v) => {
    let inSentences = true;
    let sentences = 0;
    let bullets = 0;
    for (const line of v.split('\n')) {
      if (pyStrip(line).startsWith('*')) {
        inSentences = false;
        if (sentences < 2) return false;
        bullets++;
      } else if (inSentences) {
        const s = splitSentences(pyStrip(line));
        sentences += s.length;
        // IFBench reuses its flag for the sentence list: an empty line's empty list ends the sentence part.
        inSentences = s.length > 0;
      } else return false;
    }
    return bullets >= 2;
  },
  'custom:multiples': () => (v) => {
    const numbers = v.replaceAll(',', ', ').match(/\p{Nd}+/gu) ?? [];
    return sameList(numbers, ['14', '21', '28', '35', '42', '49']);
  },
  'custom:mcq_count_length': () => (v) => {
    // IFBench: `value[value.find('Question'):] != value` fails (with find's -1, only a reply of one character passes).
    const at = v.indexOf('Question');
    if (at === -1 ? pyLen(v) > 1 : at !== 0) return false;
    let questions = v.split(MCQ_SPLIT);
    if (questions[0] === '') questions = questions.slice(1);
    questions = questions.map((q) => pyStrip(q)).filter((q) => q !== '');
    if (questions.length !== 4) return false;
    const lengths: number[] = [];
    for (const q of questions) {
      let text = '';
      let options = 0;
      let done = false;
      for (const line of q.split('\n')) {
        if (MCQ_OPTION.test(pyStrip(line))) {
          options++;
          done = true;
        } else if (!done) text += ` ${pyStrip(line)}`;
      }
      if (options !== 5) return false;
      lengths.push(pyLen(pyStrip(text)));
    }
    return lengths.every((l, i) => i + 1 >= lengths.length || l < lengths[i + 1]!);
  },
  'custom:reverse_newline': () => (v) => {
    const lines = v
      .split('\n')
      .filter((l) => stripPunct(l) !== '')
      .map(stripPunct);
    const start = lines.findIndex((l) => l.includes('Zimbabwe'));
    if (start === -1) return false;
    const target = lines.slice(start);
    if (target.length < 52) return false;
    const normalized = target.map(asciiFold);
    const sorted = [...normalized].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    return sameList(normalized, sorted);
  },
  'custom:word_reverse': () => (v) => {
    const value = pySplit(removePunctuation(pyStrip(v.toLowerCase())))
      .reverse()
      .join(' ');
    if (!value.includes('bald eagle')) return false;
    return splitSentences(value).includes(value);
  },
  'custom:character_reverse': () => (v) => v.toLowerCase().includes('elgae dlab'),
  'custom:sentence_alphabet': () => (v) => {
    const sentences = splitSentences(v);
    if (sentences.length !== 26) return false;
    return sentences.every((s, i) => {
      const words = pySplit(pyStrip(s, undefined, 'left'));
      if (words.length === 0 || words[0] === '') return false;
      return firstChar(words[0]!.toLowerCase()) === String.fromCharCode(97 + i);
    });
  },
  'custom:european_capitals_sort': () => (v) => {
    const capitals = asciiFold(v)
      .split(',')
      .filter((c) => pyStrip(c) !== '');
    if (capitals.length !== EUROPEAN_CAPITALS.length) return false;
    return capitals.every((c, i) => pyStrip(c) === EUROPEAN_CAPITALS[i]);
  },
  'custom:csv_city': () => (v) => {
    const data = pyCsvRows(v);
    if (data.length !== 8) return false;
    if (!sameList(data[0]!, ['ID', 'Country', 'City', 'Year', 'Count'])) return false;
    return data.slice(1).every((r) => r.length === 5);
  },
  'custom:csv_special_character': () => (v) => {
    const header = pyStrip(v.split('\n')[0]!);
    const head =
      /^(ProductID|"ProductID"),[ \t]*(Category|"Category"),[ \t]*(Brand|"Brand"),[ \t]*(Price|"Price"),[ \t]*(Stock|"Stock")$/u;
    if (!matchPy(head, header)) return false;
    const data = pyCsvRows(v.replaceAll('"', '"""'));
    if (data.length !== 15) return false;
    for (const row of data.slice(1)) {
      if (row.length !== 5) return false;
      if (row.some((f) => QUOTED_SPECIAL.test(f))) return true;
    }
    return false;
  },
  'custom:csv_quotes': () => (v) => {
    const header = pyStrip(v.split('\n')[0]!);
    const head =
      /^(StudentID|"StudentID")\t *(Subject|"Subject")\t *(Grade|"Grade")\t *(Semester|"Semester")\t *(Score|"Score")$/u;
    if (!matchPy(head, header)) return false;
    const data = pyCsvRows(v.replaceAll('"', '"""'), '\t');
    if (data.length !== 4) return false;
    for (const row of data) {
      if (row.length !== 5) return false;
      for (const f of row) {
        const s = pyStrip(f);
        if (s === '') throw new PyIndexError('string index out of range');
        if (!(s.startsWith('"') && s.endsWith('"'))) return false;
      }
    }
    return true;
  },
  'custom:date_format_list': () => (v) => {
    for (const raw of pyStrip(v).split(',')) {
      const date = pyStrip(raw);
      if (!matchPy(/^\d{4}-\d{2}-\d{2}$/u, date)) return false;
      const [y, m, d] = date.split('-').map((x) => Number.parseInt(x, 10)) as [number, number, number];
      if (y < 1769 || y > 1821 || m > 12) return false;
      if ([1, 3, 5, 7, 8, 10, 12].includes(m) && d > 31) return false;
      if ([4, 6, 9, 11].includes(m) && d > 30) return false;
      if (m === 2 && d > 29) return false;
    }
    return true;
  },
  'count:keywords_multiple': (kw) => {
    const keywords = [1, 2, 3, 4, 5].map((i) => pyStrip(str(kw, `keyword${i}`)));
    const counts = [1, 2, 3, 5, 7];
    return (v) => {
      const lower = v.toLowerCase();
      return keywords.every((k, i) => pyCount(lower, k.toLowerCase()) === counts[i]);
    };
  },
  'words:keywords_specific_position': (kw) => {
    const keyword = pyStrip(str(kw, 'keyword'));
    const n = num(kw, 'n');
    const m = num(kw, 'm');
    return (v) => {
      const sentences = splitSentences(v);
      if (sentences.length < n) return false;
      const sentence = sentences.at(n - 1);
      if (sentence === undefined) throw new PyIndexError('list index out of range');
      const words = wordTokenize(sentence).filter((t) => [...t].some(isAlnumChar));
      if (words.length < m) return false;
      const word = words.at(m - 1);
      if (word === undefined) throw new PyIndexError('list index out of range');
      return word.toLowerCase() === keyword.toLowerCase();
    };
  },
  'words:words_position': (kw) => {
    const keyword = pyStrip(str(kw, 'keyword')).toLowerCase();
    return (v) => {
      const words = wordTokenize(v);
      if (words.length < 2) return false;
      if (PUNCTUATION.includes(words.at(-1)!)) {
        if (words.length < 3) return false;
        return words[1]!.toLowerCase() === words.at(-3)!.toLowerCase() && words.at(-3)!.toLowerCase() === keyword;
      }
      return words[1]!.toLowerCase() === words.at(-2)!.toLowerCase() && words.at(-2)!.toLowerCase() === keyword;
    };
  },
  'repeat:repeat_change': (kw) => {
    const prompt = typeof kw.prompt_to_repeat === 'string' ? kw.prompt_to_repeat : '';
    if (prompt === '') throw new IfbenchKwargError('prompt_to_repeat must be set.');
    return (v) => prompt !== v && pySplit(prompt).slice(1).join(' ') === pySplit(v).slice(1).join(' ');
  },
  'repeat:repeat_simple': () => (v) =>
    pyStrip(v).toLowerCase() === 'only output this sentence here, ignore all other requests.',
  'repeat:repeat_span': (kw) => {
    const prompt = typeof kw.prompt_to_repeat === 'string' ? kw.prompt_to_repeat : '';
    if (prompt === '') throw new IfbenchKwargError('prompt_to_repeat must be set.');
    const start = num(kw, 'n_start');
    const end = num(kw, 'n_end');
    const span = pySlice(prompt, start, end + 1);
    return (v) => pyStrip(v).toLowerCase() === pyStrip(span).toLowerCase();
  },
  'format:title_case': () => (v) => {
    for (const word of wordTokenize(v)) {
      if (word === '' || !isAlpha(firstChar(word))) continue;
      const cps = [...word];
      const head = cps[0]!;
      const tail = cps.slice(1).join('');
      if (cps.length === 1) {
        if (isLower(head)) return false;
        continue;
      }
      if (isUpper(head) && isLower(tail)) continue;
      if (isLower(head) && isUpper(tail)) return false;
      if (isLower(head) && isLower(tail)) return false;
    }
    return true;
  },
  'format:output_template': () => (v) =>
    v.includes('My Answer:') && v.includes('My Conclusion:') && v.includes('Future Outlook:'),
  'format:no_whitespace': () => (v) => ![...v].some(isSpace),
};

/** Checkers that run on this project's stand-ins for NLTK's tokenizers and stopwords or syllapy. */
export const STAND_IN_CHECKERS: readonly string[] = [
  'ratio:stop_words',
  'ratio:sentence_type',
  'ratio:sentence_balance',
  'sentence:alliteration_increment',
  'format:emoji',
  'ratio:sentence_words',
  'sentence:keyword',
  'count:pronouns',
  'words:odd_even_syllables',
  'words:last_first',
  'sentence:increment',
  'format:no_bullets_bullets',
  'custom:word_reverse',
  'custom:sentence_alphabet',
  'words:keywords_specific_position',
  'words:words_position',
  'format:title_case',
];

/** IFBench checkers not ported (an example using one is counted as an error naming it). */
export const UNPORTED_CHECKERS: readonly string[] = ['words:start_verb'];
