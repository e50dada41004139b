/**
 * `cookbook eval_compare a=<eval folder> b=<eval folder>`: per-benchmark deltas of two evaluations and the examples
 * that flipped (solved in one, not in the other). Each folder is a cookbook eval log_path or a folder in upstream's
 * layout (`<benchmark>/result.json`, e.g. a run of an eval store). Prints the table and writes compare.html and
 * compare.json.
 */
import { mkdirSync } from 'node:fs';
import { ConfigError, DataError } from '@cookbook/core';
import { compareResults, comparisonText, readEvalFolder, writeComparison } from '@cookbook/eval';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';

export const evalCompareSchema = z.object({
  a: z
    .string()
    .min(1)
    .describe(
      'First eval folder (a cookbook eval log_path, or upstream layout: an eval store run), e.g. the base model',
    ),
  b: z.string().min(1).describe('Second eval folder, e.g. the trained checkpoint'),
  logPath: z
    .string()
    .min(1)
    .default('.cookbook-runs/eval_compare')
    .describe('Folder for compare.html and compare.json'),
});

export const evalCompare = defineRecipe({
  name: 'eval_compare',
  description: 'Compare two eval folders: per-benchmark deltas and the examples that flipped (writes compare.html)',
  schema: evalCompareSchema,
  async run(config, io) {
    for (const key of ['a', 'b'] as const) {
      try {
        readEvalFolder(config[key]);
      } catch (error) {
        if (!(error instanceof DataError)) throw error;
        throw new ConfigError(`${key}=${config[key]}: ${error.message}`, { key, cause: error });
      }
    }
    const comparison = compareResults(config.a, config.b);
    mkdirSync(config.logPath, { recursive: true });
    const html = writeComparison(comparison, config.logPath);
    io.out(comparisonText(comparison));
    io.out(`comparison: ${html}`);
  },
});
