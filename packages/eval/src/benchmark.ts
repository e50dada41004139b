/**
 * Benchmarks (upstream `eval/benchmarks/`): a named set of examples, each played as a message env
 * ({@link MessageEnv}) — one turn for a question, several for follow-up questions or a custom multi-turn env — and
 * graded. A JSONL task file, a Hub dataset and a hand-written env all end up as a {@link Benchmark}.
 */
import { ConfigError, getTextContent, type Message } from '@cookbook/core';
import type { MessageEnv, MessageStepResult } from '@cookbook/training';
import type { InstructionSpec } from './graders/instructions.js';

/** What a turn is graded against. */
export interface GradeTarget {
  /** Reference answer; several = accepted alternatives. */
  answer?: string | readonly string[] | undefined;
  /** Choices of a multiple-choice question (the answer is a letter, a 0-based index or the choice's text). */
  choices?: readonly string[] | undefined;
  /** Instructions the reply must follow (IFEval-style). */
  instructions?: readonly InstructionSpec[] | undefined;
}

/** A later user turn of a multi-turn example. */
export interface FollowUpTurn extends GradeTarget {
  content: string;
}

/** One benchmark example. */
export interface BenchmarkExample extends GradeTarget {
  /** Unique within its benchmark. */
  id: string;
  /** The conversation shown first (optional system prompt, the first user turn). */
  messages: Message[];
  /** Follow-up user turns, each sent after the model's previous reply and graded on its own. */
  turns?: readonly FollowUpTurn[] | undefined;
  /** Grader name for this example, overriding the benchmark's. */
  grader?: string | undefined;
  /** Other fields of the task row (available to custom graders, shown in reports). */
  metadata?: Record<string, unknown> | undefined;
}

/** What a grader sees. */
export interface GradeInput {
  /** The text of the model's reply (thinking removed). */
  response: string;
  target: GradeTarget;
  example: BenchmarkExample;
  /** 0 for the first reply, i for the reply to follow-up turn i. */
  turn: number;
  /** The conversation the reply answers. */
  prompt: readonly Message[];
}

/** A grader's verdict on one reply. */
export interface GradeResult {
  correct: boolean;
  /** In [0, 1]; 1/0 for right/wrong graders, a fraction for partial credit (e.g. instructions followed). */
  score: number;
  /** What was compared (the boxed answer, the chosen letter), for reports. */
  extracted?: string | undefined;
}

/** Grades one reply. */
export type Grader = (input: GradeInput) => GradeResult | Promise<GradeResult>;

/** One graded sample of an example, for {@link Benchmark.aggregate}. */
export interface GradedSample {
  example: BenchmarkExample;
  correct: boolean;
  score: number;
}

/** A benchmark: examples and how to grade (or play) them. */
export interface Benchmark {
  /** Used in metric names (`eval/<name>/score`) and result ids (`<name>/<example id>`). */
  name: string;
  examples: readonly BenchmarkExample[];
  /** The default grader of its examples (an example's `grader` names another). */
  grader: Grader;
  /** Custom env of an example (multi-turn games, tools); default: {@link GradedEnv} with the grader. */
  makeEnv?: (example: BenchmarkExample) => MessageEnv;
  /** Grader of an example's `grader` name. Default: none (an unknown name fails the example). */
  graderByName?: (name: string) => Grader | undefined;
  /** Extra metrics of the benchmark's upstream-format `result.json` (e.g. per-subject accuracy). */
  aggregate?: (samples: readonly GradedSample[]) => Record<string, number>;
  /**
   * The sampling settings the benchmark is run with when the eval's config leaves them unset (null): upstream's
   * per-benchmark defaults for the native benchmarks. Explicit config keys override each one.
   */
  samplingDefaults?: BenchmarkSamplingDefaults;
}

/** A benchmark's own sampling defaults (each optional: an absent one falls back to the eval's package default). */
export interface BenchmarkSamplingDefaults {
  temperature?: number;
  maxTokens?: number;
  concurrency?: number;
  timeoutSeconds?: number;
}

/** The grade target of `turn` of `example`. */
export function targetOf(example: BenchmarkExample, turn: number): GradeTarget {
  if (turn === 0) return example;
  const t = example.turns?.[turn - 1];
  return t ?? {};
}

/** The grader of `example` in `benchmark`. */
export function graderOf(benchmark: Benchmark, example: BenchmarkExample): Grader {
  if (example.grader === undefined) return benchmark.grader;
  const g = benchmark.graderByName?.(example.grader);
  if (g === undefined) throw new ConfigError(`example ${example.id}: unknown grader "${example.grader}"`);
  return g;
}

/** The text of a reply, thinking left out. */
export function replyText(reply: Pick<Message, 'content'>): string {
  return getTextContent(reply);
}

/**
 * The env of a graded example: shows its messages, grades each reply against its turn's target, sends the next
 * follow-up turn until none is left. Reward per step = that turn's score; the last step reports `correct` (every
 * turn correct, 0/1) and `score` (mean turn score).
 */
export class GradedEnv implements MessageEnv {
  private readonly conversation: Message[];
  private turn = 0;
  private readonly scores: number[] = [];
  private allCorrect = true;
  /** What the grader extracted from each reply. */
  readonly extracted: (string | undefined)[] = [];

  constructor(
    readonly example: BenchmarkExample,
    private readonly grader: Grader,
  ) {
    this.conversation = [...example.messages];
  }

  async initialMessages(): Promise<Message[]> {
    return [...this.example.messages];
  }

  async step(reply: Message): Promise<MessageStepResult> {
    const prompt = [...this.conversation];
    const grade = await this.grader({
      response: replyText(reply),
      target: targetOf(this.example, this.turn),
      example: this.example,
      turn: this.turn,
      prompt,
    });
    this.scores.push(grade.score);
    this.extracted.push(grade.extracted);
    this.allCorrect &&= grade.correct;
    this.conversation.push(reply);
    const next = this.example.turns?.[this.turn];
    this.turn++;
    if (next !== undefined) {
      const user: Message = { role: 'user', content: next.content };
      this.conversation.push(user);
      return { reward: grade.score, episodeDone: false, nextMessages: [user] };
    }
    const score = this.scores.reduce((a, b) => a + b, 0) / this.scores.length;
    return {
      reward: grade.score,
      episodeDone: true,
      nextMessages: [],
      metrics: { correct: this.allCorrect ? 1 : 0, score },
    };
  }
}

/**
 * Grades a finished conversation again (re-grading without re-sampling): the assistant replies of `prompt` plus
 * `response`, each against its turn's target. Returns undefined when the replies do not match the example's turns.
 */
export async function regradeConversation(
  example: BenchmarkExample,
  grader: Grader,
  prompt: readonly Message[],
  response: string,
): Promise<GradeResult | undefined> {
  const env = new GradedEnv(example, grader);
  const replies = [...prompt.slice(example.messages.length).filter((m) => m.role === 'assistant'), null];
  if (replies.length !== 1 + (example.turns?.length ?? 0)) return undefined;
  let last: MessageStepResult | undefined;
  const extracted: (string | undefined)[] = [];
  for (const r of replies) {
    last = await env.step(r ?? { role: 'assistant', content: response });
    extracted.push(env.extracted.at(-1));
  }
  if (last?.metrics === undefined) return undefined;
  return { correct: last.metrics.correct === 1, score: last.metrics.score ?? 0, extracted: extracted.at(-1) };
}
