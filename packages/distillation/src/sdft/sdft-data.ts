/**
 * SDFT data (upstream `recipes/sdft/datasets.py`): SciKnowEval's chemistry L3 multiple-choice questions and ToolAlpaca
 * from the Hugging Face Hub (network; a seeded Python shuffle, then the first 90 % to train, as upstream), a JSONL
 * file of `{question, golden_answer}`, and a shipped offline set for the mechanics: questions whose reference answer
 * is an arbitrary code word, which the stand-in cannot know but can copy once the answer is in its context — so the
 * in-context teacher and the student start far apart.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { DataError, PythonRandom } from '@cookbook/core';
import { type FetchHubRowsOptions, fetchHubRows } from '@cookbook/eval';
import type { SdftExample } from './sdft.js';

const THINGS = [
  'apple',
  'river',
  'lamp',
  'cloud',
  'stone',
  'bread',
  'chair',
  'horse',
  'glass',
  'piano',
  'tiger',
  'candle',
];
const WORDS = [
  'zebra',
  'copper',
  'violet',
  'harbor',
  'maple',
  'orbit',
  'falcon',
  'velvet',
  'saddle',
  'quartz',
  'ember',
  'tundra',
];

/** The offline set: "What is the code word for X?" → "The code word for X is Y." (12 fixed pairs). */
export const OFFLINE_SDFT_EXAMPLES: readonly SdftExample[] = THINGS.map((thing, i) => ({
  question: `What is the code word for ${thing}?`,
  goldenAnswer: `The code word for ${thing} is ${WORDS[i]}.`,
}));

/** Largest SDFT data file read (bytes). */
export const MAX_SDFT_FILE_BYTES = 256 * 1024 * 1024;

/** Reads `{question, golden_answer}` JSONL (one example per non-blank line); errors name the file and line. */
export function readSdftJsonl(path: string): SdftExample[] {
  if (!existsSync(path)) throw new DataError('SDFT data file not found', { file: path });
  const st = statSync(path);
  if (st.isDirectory()) throw new DataError('is a folder; expected a .jsonl file', { file: path });
  if (st.size > MAX_SDFT_FILE_BYTES)
    throw new DataError(`is ${st.size} bytes; the limit is ${MAX_SDFT_FILE_BYTES}`, { file: path });
  const out: SdftExample[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      if (raw.trim() === '') return;
      let row: unknown;
      try {
        row = JSON.parse(raw);
      } catch (err) {
        throw new DataError(`invalid JSON: ${err instanceof Error ? err.message : String(err)}`, {
          file: path,
          line: i + 1,
        });
      }
      const r = (typeof row === 'object' && row !== null ? row : {}) as Record<string, unknown>;
      for (const f of ['question', 'golden_answer']) {
        if (typeof r[f] !== 'string' || (r[f] as string).trim() === '') {
          throw new DataError('missing, empty or not a string', { file: path, line: i + 1, field: f });
        }
      }
      out.push({ question: r.question as string, goldenAnswer: r.golden_answer as string });
    });
  if (out.length === 0) throw new DataError('holds no examples', { file: path });
  return out;
}

/** A seeded Python shuffle, then the first `trainFraction` to train and the rest to test (upstream's split). */
function split<T>(rows: T[], seed: number, trainFraction: number): { train: T[]; test: T[] } {
  new PythonRandom(seed).shuffle(rows);
  const k = Math.floor(rows.length * trainFraction);
  return { train: rows.slice(0, k), test: rows.slice(k) };
}

/** SciKnowEval (hicai-zju/SciKnowEval, test split): `domain`'s L3 MCQ rows as upstream formats them. */
export async function loadSciKnowEval(
  options: {
    domain?: string;
    seed?: number;
    trainFraction?: number;
    limit?: number;
    fetch?: FetchHubRowsOptions['fetch'];
  } = {},
): Promise<{ train: SdftExample[]; test: SdftExample[] }> {
  const domain = options.domain ?? 'Chemistry';
  const rows = await fetchHubRows({
    dataset: 'hicai-zju/SciKnowEval',
    split: 'test',
    limit: options.limit ?? 100_000,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const filtered = rows.filter((r) => {
    const details = r.details as Record<string, unknown> | null | undefined;
    return r.domain === domain && details?.level === 'L3' && String(r.type ?? '').includes('mcq');
  });
  if (filtered.length === 0) {
    throw new DataError(`SciKnowEval: no L3 multiple-choice rows for domain=${domain} among ${rows.length} rows`);
  }
  const toExample = (r: Record<string, unknown>): SdftExample => {
    const choices = (r.choices ?? {}) as { label?: unknown[]; text?: unknown[] };
    const labels = choices.label ?? [];
    const texts = choices.text ?? [];
    const lines = labels.slice(0, texts.length).map((l, i) => `${String(l)}: ${String(texts[i])}`);
    return {
      question:
        `${String(r.question)}\n\n${lines.join('\n')}\n` +
        'Please reason step by step, then give your answer as <answer>X</answer> where X is the letter of the correct option.',
      goldenAnswer: String(r.answerKey),
    };
  };
  const s = split(filtered, options.seed ?? 42, options.trainFraction ?? 0.9);
  return { train: s.train.map(toExample), test: s.test.map(toExample) };
}

/** ToolAlpaca (tangqiaoyu/ToolAlpaca, train split): instruction → output, split as upstream. */
export async function loadToolAlpaca(
  options: { seed?: number; trainFraction?: number; limit?: number; fetch?: FetchHubRowsOptions['fetch'] } = {},
): Promise<{ train: SdftExample[]; test: SdftExample[] }> {
  const rows = await fetchHubRows({
    dataset: 'tangqiaoyu/ToolAlpaca',
    split: 'train',
    limit: options.limit ?? 100_000,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const examples = rows.map((r) => ({ question: String(r.instruction), goldenAnswer: String(r.output) }));
  const indices = examples.map((_, i) => i);
  const s = split(indices, options.seed ?? 42, options.trainFraction ?? 0.9);
  return { train: s.train.map((i) => examples[i]!), test: s.test.map((i) => examples[i]!) };
}
