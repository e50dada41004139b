/**
 * Scripted players of the word-puzzle games (WordSearch, Crosswords); see `players.ts` for the contract: the episode's
 * observation history in, a `\boxed{…}` action out, reading only what a model sees.
 */
import { CROSSWORD_ENTRIES } from './internal/crossword-clues.js';
import { EN_BASIC_WORDS } from './internal/en-basic-words.js';
import { historyText, lastBlock } from './internal/history.js';
import { nltkEnWords } from './internal/nltk-en-words.js';

let basicDict: Set<string> | undefined;
let nltkEnDict: Set<string> | undefined;

/** Basic English words of 3+ letters, upper-case. */
function basicDictionary(): Set<string> {
  basicDict ??= new Set(EN_BASIC_WORDS.filter((w) => w.length >= 3).map((w) => w.toUpperCase()));
  return basicDict;
}

/** NLTK en words of 3+ letters, upper-case (the hardcore grids' source). */
function nltkEnDictionary(): Set<string> {
  nltkEnDict ??= new Set(
    nltkEnWords()
      .filter((w) => w.length >= 3)
      .map((w) => w.toUpperCase()),
  );
  return nltkEnDict;
}

/**
 * WordSearch: reads the last grid shown and looks across and down (both ways) for dictionary words of three or
 * more letters not yet claimed (Basic English, or NLTK's en for hardcore grids); plays the longest one not tried, else
 * a straight segment not tried. Random filler letters spell short spurious words, which cost a turn each.
 */
export function wordSearchPlayer(history: string | readonly string[]): string {
  const text = historyText(history);
  const grid = lastBlock(text, 'Current Board:\n')
    .slice(1)
    .filter((l) => /^R\d\d /.test(l))
    .map((l) => [...l.slice(4).matchAll(/[ [](.)[ \]] ?/g)].map((m) => m[1]!));
  const n = grid.length;
  if (n === 0) return '\\boxed{0 0 0 1}';
  const tried = new Set(
    [...text.matchAll(/coordinates \((\d+), (\d+)\) to \((\d+), (\d+)\)/g)].map((m) => m.slice(1, 5).join(' ')),
  );
  for (const m of text.matchAll(/you tried \((\d+), (\d+)\) to \((\d+), (\d+)\)/g)) tried.add(m.slice(1, 5).join(' '));
  const dictionary = text.includes('Word Search challenge (Hardcore)') ? nltkEnDictionary() : basicDictionary();
  const found: [number, string][] = [];
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < n; a++) {
      for (let b = a + 2; b < n; b++) {
        const across = grid[i]!.slice(a, b + 1).join('');
        const down = grid
          .slice(a, b + 1)
          .map((row) => row[i])
          .join('');
        const moves: [string, string, string][] = [
          [across, `${i} ${a} ${i} ${b}`, `${i} ${b} ${i} ${a}`],
          [down, `${a} ${i} ${b} ${i}`, `${b} ${i} ${a} ${i}`],
        ];
        for (const [word, fwd, back] of moves) {
          if (dictionary.has(word) && !tried.has(fwd) && !tried.has(back)) found.push([word.length, fwd]);
        }
      }
    }
  }
  found.sort((x, y) => y[0] - x[0]);
  if (found.length > 0) return `\\boxed{${found[0]![1]}}`;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) if (!tried.has(`${i} 0 ${i} ${j}`)) return `\\boxed{${i} 0 ${i} ${j}}`;
  }
  return '\\boxed{0 0 0 1}';
}

/**
 * Crosswords with the word bank as its vocabulary: maps each listed clue to its word, finds where that word fits
 * on the last grid shown (direction and length from the clue, letters already filled must agree), and fills the
 * first empty cell of the first word not yet complete. A model has to recall the words; this player knows them.
 */
export function crosswordsPlayer(history: string | readonly string[]): string {
  const text = historyText(history);
  const grid = lastBlock(text, 'Current Board:\n')
    .slice(1)
    .filter((l) => /^R\d\d /.test(l))
    .map((l) => [...l.slice(4).matchAll(/ (.) {2}/g)].map((m) => m[1]!));
  const n = grid.length;
  const clues = lastBlock(text, 'Here are the clues for the words you need to find:\n');
  const byClue = new Map(CROSSWORD_ENTRIES.map((e) => [e.clue, e.word.toUpperCase()]));
  const wrong = new Set(
    [...text.matchAll(/place ([A-Z]) at \((\d+), (\d+)\), but it is incorrect/g)].map((m) => `${m[2]},${m[3]},${m[1]}`),
  );
  const at = (r: number, c: number): string | undefined => grid[r]?.[c];
  for (const line of clues) {
    const m = /^\d+\. (.*) \((across|down)\): (\d+) letters$/.exec(line);
    const word = m ? byClue.get(m[1]!) : undefined;
    if (m === null || word === undefined) continue;
    const across = m[2] === 'across';
    const places: { cells: [number, number][]; clean: boolean }[] = [];
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const cells = [...word].map((_, i) => (across ? [r, c + i] : [r + i, c]) as [number, number]);
        const fits = cells.every(([a, b], i) => {
          const v = at(a, b);
          return (v === '_' || v === word[i]) && !wrong.has(`${a},${b},${word[i]}`);
        });
        if (!fits) continue;
        // A placement bounded by '.' (or the edge) at both ends is the likely one.
        const before = across ? at(r, c - 1) : at(r - 1, c);
        const after = across ? at(r, c + word.length) : at(r + word.length, c);
        places.push({ cells, clean: (before ?? '.') === '.' && (after ?? '.') === '.' });
      }
    }
    places.sort((x, y) => Number(y.clean) - Number(x.clean));
    for (const { cells } of places) {
      const open = cells.findIndex(([a, b]) => at(a, b) === '_');
      if (open >= 0) return `\\boxed{${cells[open]![0]} ${cells[open]![1]} ${word[open]}}`;
      break;
    }
  }
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (grid[r]![c] === '_') return `\\boxed{${r} ${c} E}`;
  return '\\boxed{0 0 E}';
}
