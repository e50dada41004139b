/**
 * Pieces shared by `on_policy_distillation` and `off_policy_distillation`: the conversations they read, and the
 * default teacher. Distillation needs a teacher that differs from the student; offline, with no `teacher_model` or
 * `teacher_checkpoint`, the recipe trains one — an SFT of `model_name` on the conversations (`warmStart`: trained
 * once, cached beside the embedded service's data, reused by later runs) — and says so.
 */
import { resolve } from 'node:path';
import type { Message } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import { readConversationFile, warmStart } from '@cookbook/supervised';
import type { ServiceClient } from '@cookbook/tinker-client';
import { z } from 'zod';
import type { RecipeIO } from '../recipe.js';
import { EXAMPLE_CONVERSATIONS } from './sl-common.js';

/** The recipe fields of the default teacher and the data. */
export const distillationDataShape = {
  dataset: z
    .string()
    .default('example')
    .describe('example (the shipped arithmetic conversations) or a JSONL file of {"messages": [...]} per line'),
  teacherSftSteps: z
    .number()
    .int()
    .positive()
    .default(80)
    .describe('No teacher given: SFT steps of the teacher trained on the data (once, cached)'),
  teacherSftBatchSize: z
    .number()
    .int()
    .positive()
    .default(8)
    .describe('No teacher given: conversations per SFT step of the teacher'),
  teacherSftLearningRate: z
    .number()
    .positive()
    .default(1e-2)
    .describe('No teacher given: learning rate of the teacher SFT (linear decay)'),
  seed: z
    .number()
    .int()
    .default(0)
    .describe('Seed of the data order, the teacher SFT and (on_policy_distillation) the student sampling'),
};

/** The conversations of `dataset` (`example` = the shipped file). */
export function readDistillationConversations(dataset: string): Message[][] {
  const path = dataset === 'example' ? EXAMPLE_CONVERSATIONS : resolve(dataset);
  return readConversationFile(path).map((r) => r.messages);
}

/** The teacher fields after the default teacher is resolved. */
export interface ResolvedTeacher {
  teacherModel: string | null;
  teacherCheckpoint: string | null;
}

/**
 * The teacher named by the config, or (none named) a teacher trained on `conversations`: SFT of `modelName` with
 * LoRA, cached by `warmStart`, then saved as sampler weights so any service can sample it.
 */
export async function resolveTeacher(
  service: ServiceClient,
  config: ResolvedTeacher & {
    modelName: string;
    loraRank: number;
    teacherSftSteps: number;
    teacherSftBatchSize: number;
    teacherSftLearningRate: number;
    seed: number;
  },
  conversations: readonly Message[][],
  renderer: Renderer,
  io: RecipeIO,
): Promise<ResolvedTeacher> {
  if (config.teacherModel !== null || config.teacherCheckpoint !== null) {
    return { teacherModel: config.teacherModel, teacherCheckpoint: config.teacherCheckpoint };
  }
  io.err(
    `no teacher_model or teacher_checkpoint given: the teacher is ${config.modelName} fine-tuned on the data ` +
      `(${config.teacherSftSteps} SFT steps, trained once and cached)`,
  );
  const ws = await warmStart({
    service,
    baseModel: config.modelName,
    loraRank: config.loraRank,
    demonstrations: { conversations, renderer },
    sft: {
      steps: config.teacherSftSteps,
      batchSize: config.teacherSftBatchSize,
      learningRate: config.teacherSftLearningRate,
    },
    seed: config.seed,
    name: 'distillation-teacher',
    log: io.err,
  });
  const training = await service.createTrainingClientFromState(ws.statePath, { optimizer: false });
  const { path } = await training.saveWeightsForSampler(`distillation-teacher-${ws.key}`);
  io.err(`teacher: ${path ?? ws.statePath} (SFT loss ${ws.initialLoss.toFixed(3)} → ${ws.finalLoss.toFixed(3)})`);
  return { teacherModel: null, teacherCheckpoint: path ?? ws.statePath };
}

/**
 * The student's starting weights for the offline demonstration: with no teacher given and no
 * `load_checkpoint_path`, a short SFT of `model_name` on the same conversations (`steps` steps, cached) — a model that
 * already writes text of the right kind, as a real base model does, but worse than the teacher. Else the config's
 * `loadCheckpointPath` as it is.
 */
export async function resolveStudentStart(
  service: ServiceClient,
  config: ResolvedTeacher & {
    modelName: string;
    loraRank: number;
    loadCheckpointPath: string | null;
    studentSftSteps: number;
    teacherSftBatchSize: number;
    teacherSftLearningRate: number;
    seed: number;
  },
  conversations: readonly Message[][],
  renderer: Renderer,
  io: RecipeIO,
): Promise<string | null> {
  const demo = config.teacherModel === null && config.teacherCheckpoint === null;
  if (!demo || config.loadCheckpointPath !== null || config.studentSftSteps === 0) return config.loadCheckpointPath;
  io.err(
    `the student starts from ${config.modelName} after ${config.studentSftSteps} SFT steps on the data (a model that ` +
      'already writes this kind of text, worse than the teacher; trained once and cached)',
  );
  const ws = await warmStart({
    service,
    baseModel: config.modelName,
    loraRank: config.loraRank,
    demonstrations: { conversations, renderer },
    sft: {
      steps: config.studentSftSteps,
      batchSize: config.teacherSftBatchSize,
      learningRate: config.teacherSftLearningRate,
    },
    seed: config.seed,
    name: 'distillation-student',
    log: io.err,
  });
  return ws.statePath;
}
