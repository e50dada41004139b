/**
 * `cookbook sl_loop`: the minimal supervised loop written out flat (upstream `recipes/sl_loop.py`): no pipelining,
 * no evaluators, one request at a time, so every line of a training step is in view. It resumes from its last
 * checkpoint at the exact next batch, like `sl_basic`. Use `sl_basic` for real runs.
 */
import { join } from 'node:path';
import { computeScheduleLrMultiplier, DataError } from '@cookbook/core';
import {
  applyLogDirDecision,
  checkLogDir,
  checkpointName,
  getLastCheckpoint,
  saveCheckpoint,
  setupLogging,
  truncateMetricsFrom,
} from '@cookbook/logging';
import { getRecommendedRendererName, getRenderer, getTokenizer } from '@cookbook/renderers';
import {
  computeMeanNll,
  conversationToDatum,
  datumWeights,
  readConversationFile,
  seededPermutation,
} from '@cookbook/supervised';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { commonFields, EXAMPLE_CONVERSATIONS, resolveLearningRate } from './sl-common.js';

export const slLoopSchema = z.object({
  log_path: z.string().default('.cookbook-runs/sl_loop').describe('Run folder: metrics.jsonl, checkpoints.jsonl'),
  dataset: z
    .string()
    .default('example')
    .describe('example (shipped conversations) or a .jsonl file of {"messages": [...]}'),
  batch_size: z.number().int().positive().default(4).describe('Conversations per step (upstream: 128)'),
  max_steps: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(30)
    .describe('Stop after this many steps; null = one epoch'),
  save_every: z.number().int().nonnegative().default(10).describe('Steps between checkpoints (0 = final only)'),
  ...commonFields,
});

export const slLoop = defineRecipe({
  name: 'sl_loop',
  description:
    'The minimal supervised loop in one flat file (default: local/qwen3-tiny on the shipped examples, offline)',
  schema: slLoopSchema,
  async run(config, io) {
    // Setup: renderer, data, log dir.
    const rendererName = config.renderer_name ?? getRecommendedRendererName(config.model_name);
    const renderer = getRenderer(rendererName, getTokenizer(config.model_name));
    const file = config.dataset === 'example' ? EXAMPLE_CONVERSATIONS : config.dataset;
    const decision = await checkLogDir(config.log_path, config.behavior_if_log_dir_exists);
    if (decision === 'exit') return;
    const rows = readConversationFile(file); // validates every line before anything is written
    const order = seededPermutation(rows.length, 0);
    const nBatches = Math.floor(rows.length / config.batch_size);
    if (nBatches === 0) throw new DataError(`fewer conversations than batch_size=${config.batch_size}`, { file });
    const totalSteps = Math.min(nBatches, config.max_steps ?? nBatches);
    const learningRate = resolveLearningRate(config.model_name, config.learning_rate);
    applyLogDirDecision(config.log_path, decision);

    // Resume: the last checkpoint's `step` is the next step to run.
    const resume = decision === 'resume' ? getLastCheckpoint(config.log_path) : undefined;
    const startStep = resume?.step ?? 0;
    if (startStep >= totalSteps) {
      io.out(`${config.log_path} already finished`);
      return;
    }
    truncateMetricsFrom(config.log_path, startStep);
    const logger = setupLogging({
      logDir: config.log_path,
      config: { ...config, learning_rate: learningRate },
      console: false,
      ...(config.wandb_project ? { wandbProject: config.wandb_project } : {}),
    });
    const service = await connectService(config.base_url);
    try {
      const client =
        resume?.state_path !== undefined
          ? await service.createTrainingClientFromState(resume.state_path, { optimizer: true })
          : await service.createLoraTrainingClient({ baseModel: config.model_name, rank: config.lora_rank });

      for (let step = startStep; step < totalSteps; step++) {
        const start = Date.now();
        // 1. The batch: conversations → datums.
        const batch = order
          .slice(step * config.batch_size, (step + 1) * config.batch_size)
          .map((i) => conversationToDatum(rows[i]!.messages, renderer, config.max_length, config.train_on_what));
        // 2. Learning rate for this step.
        const lr = learningRate * computeScheduleLrMultiplier(config.lr_schedule, step, totalSteps);
        // 3. Forward/backward, then one Adam step; both are queued before we wait.
        const fwdBwdFuture = client.forwardBackward(batch, 'cross_entropy');
        const optimFuture = client.optimStep({ learningRate: lr, beta1: 0.9, beta2: 0.95, eps: 1e-8 });
        const fwdBwd = await fwdBwdFuture;
        await optimFuture;
        // 4. Metrics.
        const nll = computeMeanNll(
          fwdBwd.lossFnOutputs.map((o) => o.logprobs!),
          batch.map(datumWeights),
        );
        const metrics = {
          train_mean_nll: nll,
          learning_rate: lr,
          progress: step / totalSteps,
          num_sequences: batch.length,
          num_tokens: batch.reduce((a, d) => a + d.modelInput.length, 0),
          'time/total': (Date.now() - start) / 1000,
        };
        logger.logMetrics(metrics, step);
        io.out(`step ${step}  train_mean_nll ${nll.toFixed(4)}  lr ${lr.toExponential(2)}`);
        // 5. Checkpoint: the state after step+1 updates; resume starts at step+1.
        const done = step + 1;
        if (config.save_every > 0 && done % config.save_every === 0 && done < totalSteps) {
          await saveCheckpoint(client, checkpointName(done), config.log_path, {
            epoch: 0,
            batch: done,
            step: done,
          });
        }
      }
      const final = await saveCheckpoint(client, 'final', config.log_path, {
        epoch: 1,
        batch: 0,
        step: totalSteps,
        final: true,
      });
      io.out(`final checkpoint: ${final.state_path} (log: ${join(config.log_path, 'metrics.jsonl')})`);
    } finally {
      await logger.close();
      await service.close();
    }
  },
});
