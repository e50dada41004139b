/**
 * Registry entries of the dataset envs: `math:jsonl` and `qa:jsonl` read a local JSONL file (`path`), since GEM's own
 * math/qa ids name Hugging Face datasets that are not available offline. Trainers load the file once and pass the
 * items to every env as `dataset`.
 */
import { ConfigError } from '@cookbook/core';
import type { Env } from '../core/env.js';
import type { EnvOptions } from '../core/registry.js';
import { CodeEnv, type CodeItem, readCodeDataset } from './code-env.js';
import { type DatasetItem, MathEnv, QaEnv, readJsonlDataset } from './dataset-env.js';

function datasetOf(options: EnvOptions, id: string): DatasetItem[] {
  if (Array.isArray(options.dataset)) return options.dataset as DatasetItem[];
  if (typeof options.path !== 'string') {
    throw new ConfigError(`${id} needs a path option (a JSONL file of {problem|question, answer})`, { key: 'path' });
  }
  return readJsonlDataset(options.path, {
    ...(typeof options.questionKey === 'string' ? { questionKey: options.questionKey } : {}),
    ...(typeof options.answerKey === 'string' ? { answerKey: options.answerKey } : {}),
  });
}

const seedOf = (options: EnvOptions) => (typeof options.seed === 'number' ? { seed: options.seed } : {});

/** The dataset env specs, in the shape of the games' `GAME_SPECS`. */
export const DATASET_SPECS: { id: string; factory: (options: EnvOptions) => Env; defaults: EnvOptions }[] = [
  {
    id: 'math:jsonl',
    factory: (o) =>
      new MathEnv({
        dataset: datasetOf(o, 'math:jsonl'),
        ...seedOf(o),
        useFormatErrorReward: o.useFormatErrorReward === true,
      }),
    defaults: {},
  },
  {
    id: 'qa:jsonl',
    factory: (o) =>
      new QaEnv({
        dataset: datasetOf(o, 'qa:jsonl'),
        ...seedOf(o),
        extractor: o.extractor === 'boxed' ? 'boxed' : 'answer_tag',
      }),
    defaults: {},
  },
  {
    id: 'code:jsonl',
    factory: (o) => {
      let dataset: CodeItem[];
      if (Array.isArray(o.dataset)) dataset = o.dataset as CodeItem[];
      else if (typeof o.path === 'string') {
        dataset = readCodeDataset(o.path, {
          ...(typeof o.questionKey === 'string' ? { questionKey: o.questionKey } : {}),
          ...(typeof o.testKey === 'string' ? { testKey: o.testKey } : {}),
        });
      } else {
        throw new ConfigError('code:jsonl needs a path option (a JSONL file of {problem, tests: {inputs, outputs}})', {
          key: 'path',
        });
      }
      return new CodeEnv({
        dataset,
        ...seedOf(o),
        ...(typeof o.maxTests === 'number' ? { maxTests: o.maxTests } : {}),
        ...(typeof o.timeoutSeconds === 'number' ? { timeoutSeconds: o.timeoutSeconds } : {}),
      });
    },
    defaults: {},
  },
];
