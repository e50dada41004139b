/**
 * Single-turn dataset envs (GEM `MathEnv`, `QaEnv`: "contextual bandits"): the observation is a question, the one
 * action is graded, and the episode ends (`TERMINAL_STATE`, terminated and truncated both true, as GEM returns).
 *
 * Item order: `reset()` walks the data in an order shuffled with `seed`, reshuffled with `seed + epoch` at each new
 * epoch; `reset(s)` picks a uniformly random item with its own RNG seeded by `s` (reproducible). Math answers are
 * graded by `@cookbook/eval`'s boxed-answer grader — the one implementation `@cookbook/rl` uses too.
 */
import { readFileSync } from 'node:fs';
import { DataError, parseJsonLine, Sfc32Rng } from '@cookbook/core';
import { extractBoxed, gradeAnswer } from '@cookbook/eval';
import { type Env, LanguageGameReward, type ResetResult, type StepResult, TERMINAL_STATE } from '../core/env.js';

/** One question with its acceptable answers. */
export interface DatasetItem {
  question: string;
  answers: string[];
}

/** Options of {@link readJsonlDataset}. */
export interface ReadJsonlOptions {
  /** Key of the question. Default: `problem`, else `question`. */
  questionKey?: string;
  /** Key of the answer (a string, a number, or a list of them). Default `answer`. */
  answerKey?: string;
}

function answersOf(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' && Number.isFinite(value)) return [String(value)];
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' || typeof v === 'number')) {
    return value.map(String);
  }
  return undefined;
}

/**
 * Reads `{problem|question, answer}` records, one JSON object per line (blank lines skipped).
 * @throws DataError naming the file, the line and the field of a bad record, or an empty file.
 */
export function readJsonlDataset(path: string, options: ReadJsonlOptions = {}): DatasetItem[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new DataError(`cannot read the dataset: ${e instanceof Error ? e.message : String(e)}`, { file: path });
  }
  const answerKey = options.answerKey ?? 'answer';
  const items: DatasetItem[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = { file: path, line: i + 1 };
    const record = parseJsonLine(line, where);
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw new DataError('expected a JSON object', where);
    }
    const r = record as Record<string, unknown>;
    const qKey = options.questionKey ?? ('problem' in r ? 'problem' : 'question');
    const question = r[qKey];
    if (typeof question !== 'string' || question.trim() === '') {
      throw new DataError(`expected a non-empty string, got ${JSON.stringify(question) ?? 'nothing'}`, {
        ...where,
        field: qKey,
      });
    }
    const answers = answersOf(r[answerKey]);
    if (answers === undefined) {
      throw new DataError(
        `expected a string, a number or a non-empty list of them, got ${JSON.stringify(r[answerKey]) ?? 'nothing'}`,
        { ...where, field: answerKey },
      );
    }
    items.push({ question, answers });
  });
  if (items.length === 0) throw new DataError('the dataset has no records', { file: path });
  return items;
}

/** The grade of one response. */
export interface Grade {
  reward: number;
  info: Record<string, unknown>;
}

/** Options of {@link DatasetEnv}. */
export interface DatasetEnvOptions {
  dataset: readonly DatasetItem[];
  /** Seeds the item order. Default 0. */
  seed?: number;
}

/** A single-turn env over a dataset; subclasses grade. */
export abstract class DatasetEnv implements Env {
  envId?: string;
  readonly dataset: readonly DatasetItem[];
  readonly seed: number;
  private order: number[] = [];
  private cursor = 0;
  private epoch = 0;
  private current: DatasetItem | undefined;

  constructor(options: DatasetEnvOptions) {
    if (options.dataset.length === 0) throw new DataError('a dataset env needs at least one item');
    this.dataset = options.dataset;
    this.seed = options.seed ?? 0;
    this.reshuffle();
  }

  private reshuffle(): void {
    this.order = new Sfc32Rng(this.seed + this.epoch).shuffle(this.dataset.map((_, i) => i));
    this.cursor = 0;
  }

  /** The item of the current episode. */
  get item(): DatasetItem | undefined {
    return this.current;
  }

  protected abstract observationOf(item: DatasetItem): string;
  protected abstract grade(action: string, item: DatasetItem): Grade;

  async reset(seed?: number): Promise<ResetResult> {
    let index: number;
    if (seed !== undefined) {
      index = new Sfc32Rng(seed).int(0, this.dataset.length - 1);
    } else {
      if (this.cursor >= this.order.length) {
        this.epoch++;
        this.reshuffle();
      }
      index = this.order[this.cursor++]!;
    }
    this.current = this.dataset[index]!;
    return { observation: this.observationOf(this.current), info: {} };
  }

  async step(action: string): Promise<StepResult> {
    if (this.current === undefined) throw new DataError('step() before reset(): call reset() first');
    const { reward, info } = this.grade(action, this.current);
    return { observation: TERMINAL_STATE, reward, terminated: true, truncated: true, info };
  }

  sampleRandomAction(): string {
    return '\\boxed{0}';
  }
}

/** Options of {@link MathEnv}. */
export interface MathEnvOptions extends DatasetEnvOptions {
  /** A response without `\boxed{}` earns −0.1 instead of 0. Default false (GEM's default). */
  useFormatErrorReward?: boolean;
}

/** Math questions graded by their last `\boxed{}` answer: 1 when equivalent to a reference answer, else 0. */
export class MathEnv extends DatasetEnv {
  private readonly useFormatErrorReward: boolean;

  constructor(options: MathEnvOptions) {
    super(options);
    this.useFormatErrorReward = options.useFormatErrorReward ?? false;
  }

  protected observationOf(item: DatasetItem): string {
    return item.question;
  }

  protected grade(action: string, item: DatasetItem): Grade {
    const boxed = extractBoxed(action);
    if (boxed === undefined) {
      return { reward: this.useFormatErrorReward ? LanguageGameReward.formatError : 0, info: { correct: false } };
    }
    const correct = item.answers.some((a) => gradeAnswer(boxed, a));
    return { reward: correct ? 1 : 0, info: { correct } };
  }
}

/** SQuAD-style answer normalisation (GEM `qa_em.py`): lower case, no punctuation, no articles, single spaces. */
export function normalizeQaAnswer(s: string): string {
  return s
    .toLowerCase()
    .replace(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g, '')
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .join(' ');
}

/** Options of {@link QaEnv}. */
export interface QaEnvOptions extends DatasetEnvOptions {
  /** Where the answer is: the last `<answer>…</answer>` (default) or the last `\boxed{}` (GEM's RuleTaker). */
  extractor?: 'answer_tag' | 'boxed';
}

/** Questions answered by exact match after {@link normalizeQaAnswer}: 1 or 0. */
export class QaEnv extends DatasetEnv {
  private readonly extractor: 'answer_tag' | 'boxed';

  constructor(options: QaEnvOptions) {
    super(options);
    this.extractor = options.extractor ?? 'answer_tag';
  }

  protected observationOf(item: DatasetItem): string {
    if (this.extractor === 'boxed') return item.question;
    return (
      'Answer the given question. Think step by step inside <think> and </think>, then give the final answer ' +
      `inside <answer> and </answer>, without explanation.\nQuestion: ${item.question}\n`
    );
  }

  /** The answer of a response, or undefined. */
  extract(action: string): string | undefined {
    if (this.extractor === 'boxed') return extractBoxed(action);
    let last: string | undefined;
    for (const m of action.matchAll(/<answer>([\s\S]*?)<\/answer>/g)) last = m[1];
    return last;
  }

  protected grade(action: string, item: DatasetItem): Grade {
    const given = this.extract(action);
    const correct = given !== undefined && item.answers.some((a) => normalizeQaAnswer(a) === normalizeQaAnswer(given));
    return { reward: correct ? 1 : 0, info: { correct } };
  }

  override sampleRandomAction(): string {
    return this.extractor === 'boxed' ? '\\boxed{True}' : '<answer>yes</answer>';
  }
}
