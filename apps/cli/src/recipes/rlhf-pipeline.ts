/**
 * `cookbook rlhf_pipeline`: the three-stage RLHF pipeline (upstream `recipes/preference/rlhf/rlhf_pipeline.py`):
 * stage 1 SFT → stage 2 reward (preference) model → stage 3 RL from the SFT state against the reward model, each stage
 * in its own sub-folder of log_path (`sft/`, `rm/`, `rl/`), each resumable, switched by run_sft / run_rm / run_rl (a
 * stage switched off reuses the final checkpoint its folder already holds).
 *
 * Offline default: the tiny stand-in `local/qwen3-tiny` on the shipped format comparisons. Stage 1 imitates both
 * completions of each comparison (so the policy answers in either format), stage 2 trains the reward model on the
 * comparison chat format (held-out `test/rm/accuracy` in `rm/metrics.jsonl`), stage 3 runs RL from the SFT state with
 * reward-model tournaments and reports `test/rm/win_rate` (the policy against held-out reference replies, judged by the
 * reward model in both orders) in `rl/metrics.jsonl`. Measured with the defaults (one run, 152 s, two runs at once):
 * the reward model's held-out accuracy 0.063 → 0.984 after 20 steps (1.000 at 40); stage 3's win rate 0.344 → 1.000.
 * Both completions hold the same tokens, so choosing A or B needs order-sensitive attention: the random-init stand-in
 * stayed at chance (train NLL ≈ ln 2) and stage 3 had no signal; the pretrained layers read it. Group rewards of a
 * tournament sum to zero, so the per-step `reward/total` is 0 by construction.
 */
import { join } from 'node:path';
import { ConfigError, configToKeyStyle, type Message } from '@cookbook/core';
import { getLastCheckpoint, REPORT_FILE, readMetrics } from '@cookbook/logging';
import {
  ComparisonEvaluator,
  chatPreferenceModel,
  chosenRejected,
  PairwisePreferenceDataset,
  PreferenceAccuracyEvaluator,
  preferencePairs,
  rewardModelDatasets,
} from '@cookbook/preference';
import { loadModelSetup, TrainOnWhat } from '@cookbook/renderers';
import { RLTrainConfigSchema, rlPlanOptions, train as trainRl } from '@cookbook/rl';
import {
  conversationDatumFn,
  SupervisedDatasetFromRows,
  SupervisedTrainConfigSchema,
  trainSupervised,
} from '@cookbook/supervised';
import { planRun, runConfigShape } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe, type RecipeIO } from '../recipe.js';
import { connectService, rendererNameField } from './common.js';
import { comparisonDatasetShape, comparisonsFromArg } from './dpo.js';
import { rlRecipeSchema } from './rl-common.js';
import { slRecipeSchema } from './sl-common.js';

const rl = rlRecipeSchema.shape;
const sl = slRecipeSchema.shape;

export const rlhfPipelineSchema = z.object({
  ...runConfigShape,
  logPath: runConfigShape.logPath.default('.cookbook-runs/rlhf_pipeline'),
  behaviorIfLogDirExists: runConfigShape.behaviorIfLogDirExists.default('resume'),
  modelName: sl.modelName,
  rendererName: rendererNameField,
  loraRank: sl.loraRank.default(8),
  ...comparisonDatasetShape,
  sftOn: z
    .enum(['both', 'chosen'])
    .default('both')
    .describe('Stage 1 imitates both completions of each comparison, or only the preferred one'),
  rmBothOrders: z
    .boolean()
    .default(true)
    .describe(
      'Stage 2 shows every comparison in both orders (same tokens, opposite labels, in one batch) instead of one seeded random order',
    ),
  runSft: z.boolean().default(true).describe('Run stage 1 (SFT); false = reuse the final checkpoint in log_path/sft'),
  runRm: z.boolean().default(true).describe('Run stage 2 (reward model); false = reuse log_path/rm'),
  runRl: z.boolean().default(true).describe('Run stage 3 (RL against the reward model)'),
  batchSize: sl.batchSize.default(16),
  maxLength: sl.maxLength.default(256),
  sftLearningRate: z.number().positive().default(1e-2).describe('Stage 1 learning rate (hosted example: 2e-4)'),
  sftSteps: z.number().int().positive().default(30).describe('Stage 1 steps'),
  rmLearningRate: z.number().positive().default(1e-2).describe('Stage 2 learning rate (hosted example: 3e-4)'),
  rmSteps: z.number().int().positive().default(40).describe('Stage 2 steps'),
  rlLearningRate: z.number().positive().default(3e-3).describe('Stage 3 learning rate (hosted example: 1e-5)'),
  rlSteps: z.number().int().positive().default(13).describe('Stage 3 steps'),
  rlMaxTokens: rl.maxTokens.default(12),
  rlGroupSize: rl.groupSize.default(4),
  rlGroupsPerBatch: rl.groupsPerBatch.default(8),
  tournament: z
    .enum(['all_pairs_both_ways', 'all_pairs_one_way'])
    .default('all_pairs_both_ways')
    .describe('Stage 3: which pairs of a group the reward model compares'),
  // Stage 3: the RL loop's evaluation is the win rate on held-out prompts.
  evalEvery: rl.evalEvery.default(4),
  numEvalPrompts: z
    .number()
    .int()
    .positive()
    .default(32)
    .describe('Stage 3: held-out prompts of the win-rate evaluation'),
  seed: z.number().int().default(0).describe('Seed of the reward-model A/B swap and of the RL prompt order'),
});

type Config = z.infer<typeof rlhfPipelineSchema>;

/** The final checkpoint a finished stage left in `dir`, or a clear error naming the switch. */
function finishedStage(dir: string, stage: string, key: string): { state_path: string; sampler_path?: string } {
  const last = getLastCheckpoint(dir, 'state_path');
  if (last?.final !== true || typeof last.state_path !== 'string') {
    throw new ConfigError(`${key}=false but ${dir} holds no finished ${stage} stage; run it first (${key}=true)`, {
      key,
    });
  }
  return {
    state_path: last.state_path,
    ...(typeof last.sampler_path === 'string' ? { sampler_path: last.sampler_path } : {}),
  };
}

async function runPipeline(config: Config, io: RecipeIO): Promise<void> {
  const { rendererName, renderer } = await loadModelSetup(config);
  const data = await comparisonsFromArg(config, io)();
  const heldOut = preferencePairs(data.test ?? []).slice(0, config.numEvalPrompts);
  const service = await connectService(config.baseUrl);
  const dirs = { sft: join(config.logPath, 'sft'), rm: join(config.logPath, 'rm'), rl: join(config.logPath, 'rl') };
  const common = {
    baseUrl: config.baseUrl,
    wandbProject: config.wandbProject,
    behaviorIfLogDirExists: config.behaviorIfLogDirExists,
    modelName: config.modelName,
    rendererName,
    loraRank: config.loraRank,
  };
  const sftDeps = { serviceClient: service, console: false, log: io.err };
  try {
    // Stage 1: SFT on the comparisons' completions.
    if (config.runSft) {
      const conversations: Message[][] = preferencePairs(data.train).flatMap((lc) => {
        const pair = chosenRejected(lc)!;
        const prompt = lc.comparison.promptConversation;
        const both = [pair.chosen, ...(config.sftOn === 'both' ? [pair.rejected] : [])];
        return both.map((c) => [...prompt, ...c]);
      });
      const toDatum = conversationDatumFn(
        {
          modelNameForTokenizer: config.modelName,
          rendererName,
          maxLength: config.maxLength,
          batchSize: config.batchSize,
          trainOnWhat: TrainOnWhat.LAST_ASSISTANT_MESSAGE,
        },
        renderer,
      );
      io.err(`stage 1/3: SFT on ${conversations.length} conversations → ${dirs.sft}`);
      // Each stage's plan comes from the command line's parse (planRun): no second parse.
      const r = await trainSupervised(
        planRun(
          SupervisedTrainConfigSchema,
          {
            ...common,
            logPath: dirs.sft,
            ...(config.wandbName ? { wandbName: `${config.wandbName}-sft` } : {}),
            learningRate: config.sftLearningRate,
            maxSteps: config.sftSteps,
            numEpochs: 1_000,
            evalEvery: 0,
            infrequentEvalEvery: 0,
            saveEvery: 10,
            recipeName: 'rlhf_pipeline/sft',
          },
          { loop: 'supervised' },
        ),
        {
          ...sftDeps,
          dataset: { train: new SupervisedDatasetFromRows(conversations, config.batchSize, toDatum) },
          onStepLogged: (s, m) => io.out(`sft step ${s}  train_mean_nll ${m.train_mean_nll?.toFixed(4)}`),
        },
      );
      if (r.status === 'interrupted' || r.status === 'skipped') return;
    }
    const sft = finishedStage(dirs.sft, 'SFT', 'run_sft');

    // Stage 2: the reward model, trained with the SFT loop on the comparison chat format.
    if (config.runRm) {
      io.err(`stage 2/3: reward model on ${data.train.length} comparisons → ${dirs.rm}`);
      const datasets = rewardModelDatasets(data, {
        renderer,
        batchSize: config.rmBothOrders ? Math.max(1, Math.floor(config.batchSize / 2)) : config.batchSize,
        swap: config.rmBothOrders,
        seed: config.seed,
        maxLength: config.maxLength,
        log: io.err,
      });
      const r = await trainSupervised(
        planRun(
          SupervisedTrainConfigSchema,
          {
            ...common,
            logPath: dirs.rm,
            ...(config.wandbName ? { wandbName: `${config.wandbName}-rm` } : {}),
            learningRate: config.rmLearningRate,
            maxSteps: config.rmSteps,
            numEpochs: 1_000,
            evalEvery: Math.max(1, Math.floor(config.rmSteps / 2)),
            infrequentEvalEvery: 0,
            saveEvery: 10,
            recipeName: 'rlhf_pipeline/rm',
          },
          { loop: 'supervised' },
        ),
        {
          ...sftDeps,
          dataset: datasets,
          // How often the reward model picks the labeled winner of held-out comparisons (both orders).
          evaluators: heldOut.length === 0 ? [] : [new PreferenceAccuracyEvaluator(heldOut, renderer, 'test/rm')],
          onStepLogged: (s, m) =>
            io.out(
              `rm step ${s}  train_mean_nll ${m.train_mean_nll?.toFixed(4)}${m['test/rm/accuracy'] === undefined ? '' : `  test/rm/accuracy ${m['test/rm/accuracy'].toFixed(3)}`}`,
            ),
        },
      );
      if (r.status === 'interrupted' || r.status === 'skipped') return;
    }
    const rm = finishedStage(dirs.rm, 'reward-model', 'run_rm');
    if (!config.runRl) return;
    if (rm.sampler_path === undefined) {
      throw new ConfigError(
        `the reward model's final checkpoint in ${dirs.rm} has no sampler weights; run run_rm=true again`,
        { key: 'run_rm' },
      );
    }

    // Stage 3: RL from the SFT state, rewarded by reward-model tournaments.
    const rmSampler = await service.createSamplingClient({ modelPath: rm.sampler_path });
    const preferenceModel = chatPreferenceModel(rmSampler, renderer);
    const prompts = preferencePairs(data.train).map((lc) => lc.comparison.promptConversation);
    const evaluators =
      heldOut.length === 0
        ? []
        : [
            new ComparisonEvaluator({
              examples: heldOut.map((lc) => ({
                promptConversation: lc.comparison.promptConversation,
                reference: lc.comparison.completionA,
              })),
              preferenceModel,
              renderer,
              maxTokens: config.rlMaxTokens,
              name: 'test/rm',
            }),
          ];
    io.err(`stage 3/3: RL from ${sft.state_path} against the reward model → ${dirs.rl}`);
    const rlHparams = configToKeyStyle(rlhfPipelineSchema, config, { keyStyle: 'snake_case' });
    const rlConfig = {
      ...common,
      logPath: dirs.rl,
      ...(config.wandbName ? { wandbName: `${config.wandbName}-rl` } : {}),
      loadCheckpointPath: sft.state_path,
      learningRate: config.rlLearningRate,
      maxTokens: config.rlMaxTokens,
      maxSteps: config.rlSteps,
      evalEvery: config.evalEvery,
      saveEvery: 5,
    };
    const r = await trainRl(planRun(RLTrainConfigSchema, rlConfig, rlPlanOptions(rlHparams)), {
      datasetBuilder: async () => ({
        train: new PairwisePreferenceDataset({
          prompts,
          renderer,
          preferenceModel,
          groupSize: config.rlGroupSize,
          groupsPerBatch: config.rlGroupsPerBatch,
          numBatches: config.rlSteps,
          tournament: config.tournament,
          seed: config.seed,
          tag: 'rlhf',
        }),
      }),
      evaluators,
      serviceClient: service,
      console: false,
      log: io.err,
      onStep: (s, m) =>
        io.out(
          `rl step ${s}  reply_chars ${(m['env/all/reply_chars'] ?? 0).toFixed(1)}${m['test/rm/win_rate'] === undefined ? '' : `  test/rm/win_rate ${m['test/rm/win_rate'].toFixed(3)}`}`,
        ),
    });
    if (r.stepsRun === 0) return;
    const { rows } = await readMetrics(join(dirs.rl, 'metrics.jsonl'));
    const wins = rows.map((x) => x['test/rm/win_rate']).filter((v): v is number => typeof v === 'number');
    if (wins.length > 0) io.out(`stage 3 test/rm/win_rate ${wins[0]?.toFixed(3)} → ${wins.at(-1)?.toFixed(3)}`);
    io.out(`reports: ${['sft', 'rm', 'rl'].map((s) => join(config.logPath, s, REPORT_FILE)).join(', ')}`);
  } finally {
    await service.close();
  }
}

export const rlhfPipeline = defineRecipe({
  name: 'rlhf_pipeline',
  description:
    'SFT → reward model → RL against the reward model, each stage resumable in log_path/{sft,rm,rl} (default: local/qwen3-tiny on the shipped format comparisons, offline). ' +
    'Hosted: TINKER_API_KEY=… cookbook rlhf_pipeline model_name=Qwen/Qwen3-8B dataset=hhh lora_rank=64 batch_size=256 sft_learning_rate=2e-4 rm_learning_rate=3e-4 rl_learning_rate=1e-5',
  schema: rlhfPipelineSchema,
  run: runPipeline,
});
