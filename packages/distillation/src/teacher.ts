/**
 * The teacher of a distillation run: a base model or a checkpoint, served by a sampler. Distillation compares the
 * teacher's and the student's logprobs token by token, so both must share one tokenizer; {@link checkSameTokenizer}
 * refuses a pair that does not, before any sampling.
 */

import { ConfigError } from '@cookbook/core';
import type { SamplingClientLike, ServiceClientLike } from '@cookbook/tinker-client';
import { getTokenizer, type Tokenizer, tokenizerFamilyForModel } from '@cookbook/tokenizers';
import { z } from 'zod';

/** The teacher fields of both distillation loops (and their recipes). */
export const teacherConfigShape = {
  teacherModel: z
    .string()
    .nullable()
    .default(null)
    .describe(
      "Teacher base model; null = the teacher checkpoint's base model, else model_name (must share the student's tokenizer)",
    ),
  teacherCheckpoint: z
    .string()
    .nullable()
    .default(null)
    .describe('Teacher weights (tinker://… sampler or state path); null = the base teacher_model'),
};

/** A teacher: a base model, a checkpoint, or both (the checkpoint's weights on that base). */
export interface TeacherSpec {
  baseModel?: string | null | undefined;
  checkpoint?: string | null | undefined;
}

/** The calls a teacher needs on the service; `createRestClient` (optional) finds a checkpoint's base model. */
export type TeacherServiceClient = Pick<ServiceClientLike, 'createSamplingClient'> & {
  createRestClient?(): Promise<{ getWeightsInfo(path: string): Promise<{ base_model: string }> }>;
};

/** A teacher ready to score: its sampler and what it is. */
export interface Teacher {
  sampler: SamplingClientLike;
  baseModel: string;
  checkpoint: string | undefined;
  /** `base model` or `checkpoint (on base model)`, for notices. */
  description: string;
}

function tryTokenizer(name: string): Tokenizer | undefined {
  try {
    return getTokenizer(name);
  } catch {
    return undefined;
  }
}

const PROBE = 'Distillation compares 12 + 30 = 42 token by token.\n';

/**
 * Refuses a teacher whose tokenizer differs from the student's: same model name, same built-in tokenizer family, or
 * two tokenizers that agree on vocabulary size and on a probe text.
 * @throws ConfigError naming both models when the tokenizers differ or cannot be compared.
 */
export function checkSameTokenizer(studentModel: string, teacherModel: string): void {
  if (studentModel === teacherModel) return;
  const fs = tokenizerFamilyForModel(studentModel);
  const ft = tokenizerFamilyForModel(teacherModel);
  if (fs !== undefined && fs === ft) return;
  const mismatch = (why: string) =>
    new ConfigError(
      `the teacher ${teacherModel} and the student ${studentModel} must share one tokenizer (${why}); ` +
        'distillation compares their logprobs token by token: choose a teacher of the same model family',
      { key: 'teacher_model' },
    );
  if (fs !== undefined && ft !== undefined) throw mismatch(`tokenizer families ${ft} and ${fs}`);
  const ts = tryTokenizer(studentModel);
  const tt = tryTokenizer(teacherModel);
  if (ts === undefined || tt === undefined) {
    throw mismatch(`the tokenizer of ${ts === undefined ? studentModel : teacherModel} could not be loaded to compare`);
  }
  if (ts.vocabSize !== tt.vocabSize) throw mismatch(`vocabulary sizes ${tt.vocabSize} and ${ts.vocabSize}`);
  if (JSON.stringify(ts.encode(PROBE)) !== JSON.stringify(tt.encode(PROBE))) {
    throw mismatch('they split the same text into different tokens');
  }
}

/**
 * Resolves the teacher's base model (the checkpoint's, when the service can tell), checks its tokenizer against the
 * student's, and opens its sampler.
 * @throws ConfigError when neither a model nor a checkpoint can be resolved, the checkpoint's base model contradicts
 * `spec.baseModel`, or the tokenizers differ.
 */
export async function createTeacher(
  service: TeacherServiceClient,
  spec: TeacherSpec,
  studentModel: string,
): Promise<Teacher> {
  const checkpoint = spec.checkpoint ?? undefined;
  let baseModel = spec.baseModel ?? undefined;
  if (checkpoint !== undefined && service.createRestClient !== undefined) {
    const info = await (await service.createRestClient()).getWeightsInfo(checkpoint);
    if (baseModel !== undefined && info.base_model !== baseModel) {
      throw new ConfigError(
        `teacher_checkpoint ${checkpoint} was trained from ${info.base_model}, but teacher_model is ${baseModel}`,
        { key: 'teacher_model' },
      );
    }
    baseModel = info.base_model;
  }
  baseModel ??= studentModel;
  checkSameTokenizer(studentModel, baseModel);
  const sampler =
    checkpoint !== undefined
      ? await service.createSamplingClient({ modelPath: checkpoint })
      : await service.createSamplingClient({ baseModel });
  return {
    sampler,
    baseModel,
    checkpoint,
    description: checkpoint !== undefined ? `${checkpoint} (on ${baseModel})` : baseModel,
  };
}
