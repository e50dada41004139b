/**
 * Prompt-only environments for on-policy distillation (upstream `distillation/datasets.py`): the policy answers a
 * prompt once and earns 0 — the whole training signal is the teacher's reverse KL, added to the advantages after the
 * rollouts. Several prompt sets, each with its own teacher, are served together by {@link CompositeDataset}.
 */

import { ConfigError, DataError, getTextContent, type Message, ModelInput } from '@cookbook/core';
import { logText } from '@cookbook/logging';
import type { Renderer } from '@cookbook/renderers';
import { safeParseResponse } from '@cookbook/renderers';
import type { Action, Env, EnvGroupBuilder, InitialObservation, RLDataset, StepResult } from '@cookbook/training';

/** One episode: the prompt's generation prompt, one sampled answer, reward 0. */
export class PromptOnlyEnv implements Env {
  constructor(
    readonly renderer: Renderer,
    readonly prompt: readonly Message[],
  ) {}

  async initialObservation(): Promise<InitialObservation> {
    return {
      observation: this.renderer.buildGenerationPrompt([...this.prompt]),
      stopCondition: this.renderer.getStopSequences(),
    };
  }

  async step(action: Action): Promise<StepResult> {
    const last = this.prompt.at(-1);
    logText(`Prompt: ${last === undefined ? '' : getTextContent(last)}`);
    logText(`Response: ${getTextContent(safeParseResponse(this.renderer, action).message)}`);
    return {
      reward: 0,
      episodeDone: true,
      nextObservation: ModelInput.empty(),
      nextStopCondition: this.renderer.getStopSequences(),
      metrics: {},
    };
  }
}

/** `groupSize` rollouts of one prompt. */
export class PromptGroupBuilder implements EnvGroupBuilder {
  constructor(
    readonly renderer: Renderer,
    readonly prompt: readonly Message[],
    readonly groupSize: number,
    readonly tag = 'prompts',
  ) {}

  async makeEnvs(): Promise<Env[]> {
    return Array.from({ length: this.groupSize }, () => new PromptOnlyEnv(this.renderer, this.prompt));
  }

  logtreeTag(): string {
    return this.tag;
  }
}

/** Options of {@link PromptDataset}. */
export interface PromptDatasetOptions {
  renderer: Renderer;
  /** The prompts (each a conversation ending where the policy answers). */
  prompts: readonly (readonly Message[])[];
  groupsPerBatch: number;
  groupSize: number;
  /** Number of batches; prompts are reused in order when there are fewer than batches × groups. */
  numBatches: number;
  /** Tag of the groups in metrics and transcripts. Default `prompts`. */
  tag?: string;
}

/** Batches of prompt groups: batch i takes prompts [i·g, (i+1)·g) cyclically. */
export class PromptDataset implements RLDataset {
  readonly length: number;
  constructor(readonly options: PromptDatasetOptions) {
    if (options.prompts.length === 0) throw new DataError('a prompt dataset needs at least one prompt');
    this.length = options.numBatches;
  }

  getBatch(index: number): EnvGroupBuilder[] {
    const { prompts, groupsPerBatch, groupSize, renderer, tag } = this.options;
    return Array.from(
      { length: groupsPerBatch },
      (_, j) =>
        new PromptGroupBuilder(renderer, prompts[(index * groupsPerBatch + j) % prompts.length]!, groupSize, tag),
    );
  }
}

/** A group builder that remembers which dataset of a {@link CompositeDataset} it came from. */
export class DatasetTaggedBuilder implements EnvGroupBuilder {
  constructor(
    readonly inner: EnvGroupBuilder,
    readonly datasetIndex: number,
  ) {}

  makeEnvs(): Promise<Env[]> {
    return this.inner.makeEnvs();
  }

  computeGroupRewards = (
    ...args: Parameters<NonNullable<EnvGroupBuilder['computeGroupRewards']>>
  ): ReturnType<NonNullable<EnvGroupBuilder['computeGroupRewards']>> =>
    this.inner.computeGroupRewards
      ? this.inner.computeGroupRewards(...args)
      : Promise.resolve(args[0].map(() => ({ reward: 0, metrics: {} })));

  logtreeTag(): string {
    return this.inner.logtreeTag?.() ?? `dataset_${this.datasetIndex}`;
  }
}

/** The dataset index of a builder served by a {@link CompositeDataset} (0 for any other builder). */
export function datasetIndexOf(builder: EnvGroupBuilder | undefined): number {
  return builder instanceof DatasetTaggedBuilder ? builder.datasetIndex : 0;
}

/**
 * Several datasets served together (upstream `CompositeDataset`): batch i is the concatenation of every dataset's
 * batch i, each group tagged with its dataset's index; the length is the shortest dataset's.
 */
export class CompositeDataset implements RLDataset {
  readonly length: number;
  constructor(readonly datasets: readonly RLDataset[]) {
    if (datasets.length === 0) throw new ConfigError('a composite dataset needs at least one dataset');
    this.length = Math.min(...datasets.map((d) => d.length));
  }

  getBatch(index: number): EnvGroupBuilder[] {
    return this.datasets.flatMap((d, i) => d.getBatch(index).map((b) => new DatasetTaggedBuilder(b, i)));
  }
}
