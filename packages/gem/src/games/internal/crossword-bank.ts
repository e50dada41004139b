/**
 * GEM's own crossword bank, where it can be had: GEM reads `words_clues.jsonl` (one JSON object a line: `word`,
 * `hardcore`, `clues` = {"1": …, "2": …}; it uses the first clue). The file is GEM's (Apache-2.0 code repository) and is
 * not shipped here: pass its path as the Crosswords option `wordsPath`, or fetch it once with
 * {@link downloadGemCrosswordBank} (online). Offline and without a path, Crosswords uses this project's own bank
 * (`crossword-clues.ts`: other words, other clues).
 */
import { readFileSync, statSync } from 'node:fs';
import { CookbookError, DataError } from '@cookbook/core';
import { writeFileAtomicSync } from '@cookbook/logging';
import type { CrosswordEntry } from './crossword-clues.js';

/** Where GEM publishes its bank (its repository's main branch). */
export const GEM_CROSSWORD_BANK_URL =
  'https://raw.githubusercontent.com/axon-rl/gem/main/gem/envs/game_env/crosswords/words_clues.jsonl';

/** Largest bank file read (GEM's is ≈ 150 kB). */
export const MAX_CROSSWORD_BANK_BYTES = 32 * 1024 * 1024;

/** The first key of the `clues` object as written in the line (Python keeps file order; JS objects sort "1".."10"). */
function firstClueKey(line: string): string | undefined {
  const m = /"clues"\s*:\s*\{\s*("(?:[^"\\]|\\.)*")/.exec(line);
  return m === null ? undefined : (JSON.parse(m[1]!) as string);
}

/** Parses a bank in GEM's JSONL format; errors name the file, line and field. */
export function parseCrosswordBank(text: string, file: string): CrosswordEntry[] {
  const entries: CrosswordEntry[] = [];
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const where = { file, line: i + 1 };
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      throw new DataError(`not JSON (${(e as Error).message})`, where);
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row)) throw new DataError('not a JSON object', where);
    const r = row as Record<string, unknown>;
    if (typeof r.word !== 'string' || !/^[A-Za-z]+$/.test(r.word)) {
      throw new DataError(`word must be letters, got ${JSON.stringify(r.word)}`, { ...where, field: 'word' });
    }
    if (typeof r.hardcore !== 'boolean') {
      throw new DataError(`hardcore must be true or false, got ${JSON.stringify(r.hardcore)}`, {
        ...where,
        field: 'hardcore',
      });
    }
    const clues = r.clues;
    if (typeof clues !== 'object' || clues === null || Array.isArray(clues)) {
      throw new DataError('clues must be an object of clue strings', { ...where, field: 'clues' });
    }
    const key = firstClueKey(line);
    const clue = key === undefined ? undefined : (clues as Record<string, unknown>)[key];
    if (typeof clue !== 'string') {
      throw new DataError('the first clue must be a string', { ...where, field: `clues.${key ?? ''}` });
    }
    entries.push({ word: r.word, hardcore: r.hardcore, clue });
  }
  if (entries.length === 0) throw new DataError('no entries', { file });
  return entries;
}

/** Reads a bank file in GEM's format (at most {@link MAX_CROSSWORD_BANK_BYTES}). */
export function readCrosswordBank(path: string): CrosswordEntry[] {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (e) {
    throw new DataError(`cannot read the crossword bank (${(e as Error).message})`, { file: path });
  }
  if (size > MAX_CROSSWORD_BANK_BYTES) {
    throw new DataError(`crossword bank is ${size} bytes, more than ${MAX_CROSSWORD_BANK_BYTES}`, { file: path });
  }
  return parseCrosswordBank(readFileSync(path, 'utf8'), path);
}

/**
 * Downloads GEM's bank to `dest` (written atomically, checked first) and returns `dest`. Needs the network: offline
 * it fails with a message saying so and how to go on.
 */
export async function downloadGemCrosswordBank(
  dest: string,
  options: { url?: string; fetch?: typeof fetch } = {},
): Promise<string> {
  const url = options.url ?? GEM_CROSSWORD_BANK_URL;
  const doFetch = options.fetch ?? fetch;
  let text: string;
  try {
    const res = await doFetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    text = await res.text();
  } catch (e) {
    throw new CookbookError(
      `cannot download GEM's crossword bank from ${url} (${(e as Error).message}): it needs the network. Offline, ` +
        "Crosswords uses this project's own bank; or pass a local copy of words_clues.jsonl as words_path.",
    );
  }
  if (text.length > MAX_CROSSWORD_BANK_BYTES) throw new DataError('downloaded bank is too large', { file: url });
  parseCrosswordBank(text, url);
  writeFileAtomicSync(dest, text);
  return dest;
}
