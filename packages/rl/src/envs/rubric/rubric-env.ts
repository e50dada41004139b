/**
 * RL on rubric scores from a judge model (upstream `recipes/rubric/env.py`). The policy continues a conversation;
 * the judge (any {@link MessageCompleter}: a hosted model, a checkpoint, another server) grades the reply once per
 * rubric item; reward = mean item score + format_coef · (stopped on a stop sequence − 1).
 *
 * A judge response without a readable score counts 0, as upstream, and is reported (the `rubric_no_score` metric
 * and `onNoScore`, naming the datapoint's file and line and the item); a non-finite score (`nan`, `inf`) counts
 * the same, so one bad judge reply cannot poison a batch's advantages.
 */
import {
  DataError,
  getTextContent,
  type Message,
  type MessageCompleter,
  ModelInput,
  type StopCondition,
} from '@cookbook/core';
import { logTable, logText } from '@cookbook/logging';
import { type Renderer, safeParseResponse } from '@cookbook/renderers';
import type { Action, Env, EnvGroupBuilder, InitialObservation, RLDataset, StepResult } from '@cookbook/training';
import {
  compileExtractionRegex,
  extractRubricScore,
  type Rubric,
  type RubricDatapoint,
  rubricGraderPrompt,
} from './rubric-data.js';

/** A judge response with no score in it. */
export interface RubricNoScore {
  datapoint: RubricDatapoint;
  itemIndex: number;
  response: string;
}

/** Options of {@link RubricGradedEnv}. */
export interface RubricEnvOptions {
  renderer: Renderer;
  judge: MessageCompleter;
  /** Weight of the format term. Default 0.1 (upstream). */
  formatCoef?: number;
  /** Called for each judge response without a readable score. */
  onNoScore?: (event: RubricNoScore) => void;
}

/** `file:line, item i` of a datapoint's rubric item (or `item i` without a source). */
export function rubricItemWhere(d: RubricDatapoint, itemIndex: number): string {
  return `${d.source === undefined ? '' : `${d.source.file}:${d.source.line}, `}rubric item ${itemIndex}`;
}

/** One rollout: the policy answers the conversation, the judge grades the answer on every item. */
export class RubricGradedEnv implements Env {
  readonly datapoint: RubricDatapoint;
  readonly options: RubricEnvOptions;
  private readonly regexes: RegExp[];

  constructor(datapoint: RubricDatapoint, options: RubricEnvOptions) {
    this.datapoint = datapoint;
    this.options = options;
    this.regexes = datapoint.rubricItems.map((r) => compileExtractionRegex(r.extractionRegex));
  }

  get stopCondition(): StopCondition {
    return this.options.renderer.getStopSequences();
  }

  async initialObservation(): Promise<InitialObservation> {
    return {
      observation: this.options.renderer.buildGenerationPrompt(this.datapoint.convo),
      stopCondition: this.stopCondition,
    };
  }

  /** The judge's score of the conversation's last message on one item, and the judge's text. */
  async grade(convo: Message[], rubric: Rubric, itemIndex: number): Promise<{ score: number; response: string }> {
    const reply = await this.options.judge.complete(rubricGraderPrompt(rubric, convo));
    const response = getTextContent(reply);
    const score = extractRubricScore(rubric, response, this.regexes[itemIndex]);
    if (score === null || !Number.isFinite(score)) {
      this.options.onNoScore?.({ datapoint: this.datapoint, itemIndex, response });
      return { score: Number.NaN, response };
    }
    return { score, response };
  }

  async step(action: Action): Promise<StepResult> {
    const { renderer, formatCoef = 0.1 } = this.options;
    const parsed = safeParseResponse(renderer, action);
    // Upstream's rule: only a stop-sequence ending is well formed (an EOS-only ending is not).
    const formatValid = parsed.termination === 'stop_sequence';
    const reply: Message = { role: 'assistant', content: getTextContent(parsed.message) };
    const convo = [...this.datapoint.convo, reply];
    const results = await Promise.all(this.datapoint.rubricItems.map((r, i) => this.grade(convo, r, i)));
    const missing = results.filter((r) => Number.isNaN(r.score)).length;
    const scores = results.map((r) => (Number.isNaN(r.score) ? 0 : r.score));
    const rubricScore = scores.reduce((a, b) => a + b, 0) / scores.length;
    const reward = rubricScore + formatCoef * (Number(formatValid) - 1);
    logText(`Policy response: ${getTextContent(reply)}`);
    results.forEach((r, i) => {
      logText(`Rubric ${i + 1}: score=${scores[i]!.toFixed(3)}  judge: ${r.response}`);
    });
    logTable({ rubric_score_mean: rubricScore, format_valid: formatValid, reward });
    return {
      reward,
      episodeDone: true,
      nextObservation: ModelInput.empty(),
      nextStopCondition: this.stopCondition,
      metrics: {
        format: Number(formatValid),
        rubric_score: rubricScore,
        rubric_no_score: missing / results.length,
      },
      logs: { termination: parsed.termination, num_rubrics: results.length },
    };
  }
}

/** `groupSize` rollouts of one datapoint. */
export class RubricGroupBuilder implements EnvGroupBuilder {
  constructor(
    readonly datapoint: RubricDatapoint,
    readonly groupSize: number,
    readonly options: RubricEnvOptions,
    readonly tag = 'rubric',
  ) {}

  async makeEnvs(): Promise<Env[]> {
    return Array.from({ length: this.groupSize }, () => new RubricGradedEnv(this.datapoint, this.options));
  }

  logtreeTag(): string {
    return this.tag;
  }
}

/**
 * Batches of `batchSize` datapoints in file order; batch i takes datapoints i·batchSize … (cycling past the end, so
 * `numBatches` may exceed one pass; upstream stops after one pass).
 */
export class RubricDataset implements RLDataset {
  readonly length: number;

  constructor(
    readonly datapoints: readonly RubricDatapoint[],
    readonly batchSize: number,
    readonly groupSize: number,
    numBatches: number,
    readonly options: RubricEnvOptions,
  ) {
    if (datapoints.length === 0) throw new DataError('rubric: the data set holds no datapoints');
    this.length = numBatches;
  }

  getBatch(index: number): EnvGroupBuilder[] {
    return Array.from({ length: this.batchSize }, (_, j) => {
      const d = this.datapoints[(index * this.batchSize + j) % this.datapoints.length]!;
      return new RubricGroupBuilder(d, this.groupSize, this.options);
    });
  }
}
