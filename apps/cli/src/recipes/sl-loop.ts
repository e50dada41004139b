/**
 * `cookbook sl_loop`: the minimal supervised loop written out flat (upstream `recipes/sl_loop.py`): no pipelining,
 * no evaluators, one request at a time, so every line of a training step is in view. It resumes from its last
 * checkpoint at the exact next batch, like `sl_basic`. Use `sl_basic` for real runs.
 */
import { join } from 'node:path';
import { computeScheduleLrMultiplier, DataError, seededPermutation } from '@cookbook/core';
import { checkpointName, saveCheckpoint } from '@cookbook/logging';
import { loadModelSetup } from '@cookbook/renderers';
import { type ConversationRow, conversationToDatum, readConversationFile } from '@cookbook/supervised';
import type { ServiceClient } from '@cookbook/tinker-client';
import { computeMeanNll, datumWeights, loopService, openTrainingClient, planRun, runLoop } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { EXAMPLE_CONVERSATIONS, slRecipeSchema } from './sl-common.js';

const lib = slRecipeSchema.shape;

export const slLoopSchema = slRecipeSchema
  .pick({
    behaviorIfLogDirExists: true,
    baseUrl: true,
    wandbProject: true,
    wandbName: true,
    modelName: true,
    rendererName: true,
    loraRank: true,
    learningRate: true,
    lrSchedule: true,
    maxLength: true,
    trainOnWhat: true,
    batchSize: true,
  })
  .extend({
    logPath: lib.logPath.default('.cookbook-runs/sl_loop'),
    dataset: z
      .string()
      .default('example')
      .describe('example (shipped conversations) or a .jsonl file of {"messages": [...]}'),
    maxSteps: lib.maxSteps.default(30),
    saveEvery: lib.saveEvery.default(10),
  });

export const slLoop = defineRecipe({
  name: 'sl_loop',
  description:
    'The minimal supervised loop in one flat file (default: local/qwen3-tiny on the shipped examples, offline)',
  schema: slLoopSchema,
  async run(config, io) {
    // Setup: the run plan (learning rate, renderer name, Adam settings) from the command line's parsed config (no
    // second parse), then the renderer it names.
    const plan = planRun(slLoopSchema, config, { loop: 'supervised' });
    const { learningRate } = plan.config;
    const { renderer } = await loadModelSetup({ modelName: config.modelName, rendererName: plan.rendererName });
    const file = config.dataset === 'example' ? EXAMPLE_CONVERSATIONS : config.dataset;
    let rows: ConversationRow[] = [];
    // The server answers before the run folder is created or an old run deleted.
    const connection = loopService<ServiceClient>(undefined, () => connectService(config.baseUrl));
    await runLoop(
      {
        connect: connection.connect,
        ...config,
        config: plan.recorded,
        console: false,
        log: io.err,
        // Every line of the data is validated before an old run is deleted or anything is written.
        prepare: () => {
          rows = readConversationFile(file);
          if (rows.length < config.batchSize) {
            throw new DataError(`fewer conversations than batch_size=${config.batchSize}`, { file });
          }
        },
      },
      async (run) => {
        const order = seededPermutation(rows.length, 0);
        const nBatches = Math.floor(rows.length / config.batchSize);
        const totalSteps = Math.min(nBatches, config.maxSteps ?? nBatches);
        // Resume: the last checkpoint's `step` is the next step to run.
        if (run.startStep >= totalSteps) return { totalSteps, endStep: run.startStep };
        run.setTotalSteps(totalSteps);
        const service = connection.get();
        // The run's checkpoint with its optimizer (exact resume), else a new LoRA on the base model.
        const { client } = await openTrainingClient(run, service, config);

        let step = run.startStep;
        for (; step < totalSteps && !run.signal.aborted; step++) {
          const start = Date.now();
          // 1. The batch: conversations → datums.
          const batch = order
            .slice(step * config.batchSize, (step + 1) * config.batchSize)
            .map((i) => conversationToDatum(rows[i]!.messages, renderer, config.maxLength, config.trainOnWhat));
          // 2. Learning rate for this step.
          const lr = learningRate * computeScheduleLrMultiplier(config.lrSchedule, step, totalSteps);
          // 3. Forward/backward, then one Adam step; both are queued before we wait.
          const fwdBwdFuture = client.forwardBackward(batch, 'cross_entropy');
          const optimFuture = client.optimStep({ learningRate: lr, ...plan.adam });
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
          run.logger.logMetrics(metrics, step);
          io.out(`step ${step}  train_mean_nll ${nll.toFixed(4)}  lr ${lr.toExponential(2)}`);
          // 5. Checkpoint: the state after step+1 updates; resume starts at step+1.
          const done = step + 1;
          if (config.saveEvery > 0 && done % config.saveEvery === 0 && done < totalSteps) {
            await saveCheckpoint(client, checkpointName(done), config.logPath, { epoch: 0, batch: done, step: done });
          }
        }
        if (step < totalSteps) {
          // Interrupted: resumable where it stopped.
          await saveCheckpoint(client, checkpointName(step), config.logPath, { epoch: 0, batch: step, step });
          return { totalSteps, endStep: step };
        }
        const final = await saveCheckpoint(client, 'final', config.logPath, {
          epoch: 1,
          batch: 0,
          step: totalSteps,
          final: true,
        });
        io.out(`final checkpoint: ${final.state_path} (log: ${join(config.logPath, 'metrics.jsonl')})`);
        return { totalSteps, endStep: totalSteps, finalCheckpoint: final };
      },
    );
  },
});
