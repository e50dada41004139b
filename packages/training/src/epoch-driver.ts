/**
 * The epoch driver of the dataset-driven loops (SFT, DPO, off-policy distillation, and any later one): a loop supplies
 * only its step — build the batch, submit the work, later collect it into metrics — and the driver owns everything
 * around it, once: step counting over epochs and `maxSteps`, the resume point, the learning-rate schedule, the eval
 * cadence (`evalEvery`, `infrequentEvalEvery`; evaluations see the weights before the step), periodic checkpoints, the
 * resumable checkpoint of an interrupted run, and the final evaluation and checkpoint.
 *
 * Per step, in order: `preStep` (a loop's own start-of-step figures), the evaluations due, `submit` (the loop queues
 * forward/backward and the optimizer step), the checkpoint due (periodic by steps, seconds or tokens, or rolling —
 * `CheckpointManager`), queued right behind the optimizer step so it holds exactly the first `step + 1` updates, then
 * the oldest submitted step is finished — its metrics logged — once more than `submitAhead` steps are in flight. The
 * save overlaps the next steps: its record is written once it is back and the row of its step is logged. A checkpoint
 * record names the next step to run, so a resumed run repeats no batch, and a metrics row is written before the
 * record of the checkpoint that follows it (a resumed run drops rows at or past its checkpoint's step): metrics.jsonl
 * never holds a step twice.
 */
import { performance } from 'node:perf_hooks';
import { computeScheduleLrMultiplier, type LrScheduleName, timed } from '@cookbook/core';
import { type CheckpointClient, type CheckpointRecord, checkpointName } from '@cookbook/logging';
import { CheckpointManager, type CheckpointPolicy, type CheckpointStore } from './checkpoint-manager.js';
import { type Evaluator, type EvaluatorOrBuilder, resolveEvaluators, trainingClientEvaluation } from './evaluator.js';
import { type LoopOutcome, type RunContext, resumeStepOf } from './run.js';

/** The settings of {@link runEpochs} (the fields of `trainingConfigShape` it reads, plus the data's size). */
export interface EpochPlan extends CheckpointPolicy {
  /** Batches per epoch. */
  nBatches: number;
  numEpochs: number;
  maxSteps: number | null;
  /** The resolved base learning rate (the schedule multiplies it). */
  learningRate: number;
  lrSchedule: LrScheduleName;
  evalEvery: number;
  infrequentEvalEvery: number;
  logPath: string;
}

/** What the driver calls on the training client: checkpoint saves, and what evaluators need. */
export type EpochClient = CheckpointClient & Parameters<typeof trainingClientEvaluation>[0];

/** Where a step stands. */
export interface EpochStep {
  /** Steps done before this one (0-based index of this step). */
  step: number;
  epoch: number;
  /** Batch index within the epoch. */
  batch: number;
  /** This step's learning rate (base × schedule). */
  learningRate: number;
  totalSteps: number;
  /** The step this call started at (0, or the resume point). */
  startStep: number;
  nBatches: number;
}

/** A step the loop has submitted; `collect` awaits its results and returns its metrics. */
export interface SubmittedWork {
  /** Awaits the step's results and returns the metrics to log (the driver adds the evaluations' and its timings). */
  collect(): Promise<Record<string, number>>;
  /** Everything in flight, settled when the run fails so no rejection goes unobserved. */
  inFlight?: readonly PromiseLike<unknown>[];
}

/** What a loop gives the driver once the run is open (built after the resume check, so a finished run builds none). */
export interface EpochLoop {
  /** The training client: evaluations and checkpoints go through it. */
  client: EpochClient;
  /** Evaluators (or builders) run every `evalEvery` steps, and the ones the loop adds itself (held-out NLL, …). */
  evaluators?: readonly EvaluatorOrBuilder[];
  /** Evaluators (or builders) run every `infrequentEvalEvery` steps. */
  infrequentEvaluators?: readonly EvaluatorOrBuilder[];
  /** Called when the step enters a new epoch (before its batch is built), e.g. to reshuffle. */
  setEpoch?(epoch: number): void;
  /** Figures of the start of a step, before its evaluations (e.g. a reference measured once at the start). */
  preStep?(at: EpochStep): Promise<Record<string, number>>;
  /** Builds the step's batch and submits its work (forward/backward and the optimizer step, queued in that order). */
  submit(at: EpochStep, metrics: Record<string, number>): Promise<SubmittedWork>;
  /** Fields of the checkpoint record after `done` steps, besides epoch/batch/step (asked when the save is queued). */
  checkpointFields?(done: number): Record<string, unknown>;
  /**
   * Tokens trained so far (across resumes: start from the resume record's `elapsed_tokens`), after the last submitted
   * step: `saveEveryTokens` counts them, and checkpoint records carry them as `elapsed_tokens`.
   */
  elapsedTokens?(): number;
  /** Deletes checkpoints past retention (`keepLast`, rolling saves): `checkpointStoreFor(service)`. */
  checkpointStore?: CheckpointStore | undefined;
  /** Steps submitted before the oldest is collected (pipelining). Default 0: each step is collected at once. */
  submitAhead?: number;
  /** Called after each logged row: `final` for the row of the final evaluation. */
  onLogged?(step: number, metrics: Record<string, number>, final: boolean): void;
  /** Called when the run has no more steps to submit (interrupted or done), e.g. to settle prefetched work. */
  stop?(): Promise<void>;
  /**
   * Saves the final state the loop's own way instead of the driver's final checkpoint (state + sampler weights,
   * recorded in `checkpoints.jsonl`, with a `done:` notice): a warm start keeps its state in its cache under a name
   * of its own. Gets the steps done; returns what the run reports as its final checkpoint.
   */
  saveFinal?(done: number): Promise<CheckpointRecord>;
}

/** Steps of a run: every batch of every epoch, capped by `maxSteps`. */
export function totalStepsOf(plan: Pick<EpochPlan, 'nBatches' | 'numEpochs' | 'maxSteps'>): number {
  return Math.min(plan.nBatches * plan.numEpochs, plan.maxSteps ?? Number.POSITIVE_INFINITY);
}

interface Pending {
  at: EpochStep;
  work: SubmittedWork;
  metrics: Record<string, number>;
}

/**
 * Runs the epochs of a dataset-driven loop inside an open run (`runLoop`'s body): resumes at the run's checkpoint,
 * returns at once for a finished run (without calling `setup`), and otherwise calls `setup` once and drives its steps
 * to the end or to the first step boundary after `run.signal` aborts.
 */
export async function runEpochs(
  run: RunContext,
  plan: EpochPlan,
  setup: (startStep: number, totalSteps: number) => Promise<EpochLoop>,
): Promise<LoopOutcome> {
  const { nBatches, evalEvery, infrequentEvalEvery, logPath } = plan;
  const totalSteps = totalStepsOf(plan);
  const resumeFrom = run.resumeFrom;
  const startStep = resumeFrom === undefined ? 0 : resumeStepOf(resumeFrom, nBatches);
  if (startStep >= totalSteps) return { totalSteps, endStep: startStep, finalCheckpoint: resumeFrom };
  run.setTotalSteps(totalSteps);
  const loop = await setup(startStep, totalSteps);
  const { client } = loop;
  const evaluators: Evaluator[] = await resolveEvaluators(loop.evaluators);
  const infrequent: Evaluator[] = await resolveEvaluators(loop.infrequentEvaluators);
  const evaluate = trainingClientEvaluation(client, { logPath, log: run.log });
  const submitAhead = loop.submitAhead ?? 0;

  const record = (done: number): Omit<CheckpointRecord, 'name'> => ({
    epoch: Math.floor(done / nBatches),
    batch: done % nBatches,
    step: done,
    ...(loop.elapsedTokens ? { elapsed_tokens: loop.elapsedTokens() } : {}),
    ...loop.checkpointFields?.(done),
  });
  const tokensAtStart = resumeFrom?.elapsed_tokens;
  const checkpoints = new CheckpointManager({
    client,
    logPath,
    policy: plan,
    store: loop.checkpointStore,
    startStep,
    ...(typeof tokensAtStart === 'number' ? { startTokens: tokensAtStart } : {}),
    log: run.log,
  });

  let lastCollected = performance.now();
  const collect = async (p: Pending) => {
    const own = await p.work.collect();
    const now = performance.now();
    p.metrics['time/total'] = (now - lastCollected) / 1000;
    lastCollected = now;
    const metrics: Record<string, number> = { ...own, ...p.metrics };
    run.logger.logMetrics(metrics, p.at.step);
    loop.onLogged?.(p.at.step, metrics, false);
    checkpoints.logged(p.at.step);
  };

  const pending: Pending[] = [];
  let currentEpoch = -1;
  let step = startStep;
  try {
    for (; step < totalSteps && !run.signal.aborted; step++) {
      const epoch = Math.floor(step / nBatches);
      if (epoch !== currentEpoch) {
        loop.setEpoch?.(epoch);
        currentEpoch = epoch;
      }
      const lr = plan.learningRate * computeScheduleLrMultiplier(plan.lrSchedule, step, totalSteps);
      const at: EpochStep = { step, epoch, batch: step % nBatches, learningRate: lr, totalSteps, startStep, nBatches };
      const metrics: Record<string, number> = loop.preStep ? await loop.preStep(at) : {};
      if (evalEvery > 0 && step % evalEvery === 0 && evaluators.length > 0) {
        Object.assign(metrics, await timed('evaluation', metrics, () => evaluate(evaluators, step)));
      }
      if (infrequentEvalEvery > 0 && step % infrequentEvalEvery === 0 && infrequent.length > 0) {
        Object.assign(metrics, await timed('infrequent_evaluation', metrics, () => evaluate(infrequent, step)));
      }
      const work = await loop.submit(at, metrics);
      const done = step + 1;
      const tokens = loop.elapsedTokens?.() ?? 0;
      const kind = checkpoints.due(done, totalSteps, tokens);
      pending.push({ at, work, metrics });
      if (kind !== undefined) {
        // One save in flight: the previous one must be back first (its step collected, so its record can follow).
        await checkpoints.submit(kind, done, record(done), tokens);
      }
      while (pending.length > submitAhead) await collect(pending.shift()!);
    }
    while (pending.length > 0) await collect(pending.shift()!);
    await checkpoints.drain();
  } finally {
    // On an error, settle what is in flight so no rejection goes unobserved.
    await Promise.allSettled(pending.flatMap((p) => [...(p.work.inFlight ?? [])]));
    await checkpoints.settle();
    await loop.stop?.();
  }

  if (step < totalSteps) {
    // Interrupted: a resumable checkpoint at the step reached (unless the last save is there already).
    if (step > startStep && !checkpoints.hasSaveAt(step)) await checkpoints.saveNow(checkpointName(step), record(step));
    return { totalSteps, endStep: step };
  }

  // Final evaluation (after the last update) and final checkpoint.
  const finalEvals = [...(evalEvery > 0 ? evaluators : []), ...(infrequentEvalEvery > 0 ? infrequent : [])];
  if (finalEvals.length > 0) {
    const finalMetrics: Record<string, number> = {};
    Object.assign(finalMetrics, await timed('evaluation', finalMetrics, () => evaluate(finalEvals, totalSteps)));
    const row = { ...finalMetrics, progress: 1 };
    run.logger.logMetrics(row, totalSteps);
    loop.onLogged?.(totalSteps, row, true);
  }
  if (loop.saveFinal) return { totalSteps, endStep: totalSteps, finalCheckpoint: await loop.saveFinal(totalSteps) };
  const finalCheckpoint = await checkpoints.saveNow('final', record(totalSteps), true);
  run.log(
    `done: final checkpoint ${finalCheckpoint.state_path ?? ''} (sampler ${finalCheckpoint.sampler_path ?? 'none'})`,
  );
  return { totalSteps, endStep: totalSteps, finalCheckpoint };
}
