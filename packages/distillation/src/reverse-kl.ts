/**
 * On-policy distillation's reward (upstream `distillation/train_on_policy.py`): the student samples, the teacher
 * scores the sampled tokens, and the per-token reverse KL estimate, student sampled logprob − teacher logprob, is
 * subtracted from the advantages (times `klPenaltyCoef`). Minimising it moves the student towards what the teacher
 * would have said, on the student's own samples. With a discount γ > 0 each token's penalty is the discounted sum of
 * the reverse KL from that token on, so early tokens answer for what they lead to.
 */
import { DataError, type Datum, datumFullSequence, lossInput, TrainingError, tensorFromFloat32 } from '@cookbook/core';
import type { LogprobComputer } from '@cookbook/rl';
import { mapLimit } from './internal/concurrency.js';

/** What one datum's reverse KL changed. */
export interface ReverseKlResult {
  /** The new advantages: advantages − coef · mask · (discounted) reverse KL. */
  advantages_T: number[];
  /** Σ reverse KL over the action tokens (mask-weighted). */
  klSum: number;
  /** Σ mask (the number of action tokens). */
  count: number;
}

/**
 * The advantages of one datum after the teacher's reverse-KL penalty. Per token t, rkl_t = mask_t · (sampled_t −
 * teacher_t); with γ = 0 the advantage becomes adv_t − coef · rkl_t; with γ > 0, adv_t − coef · mask_t · Σ_{u ≥ t}
 * γ^{u−t} rkl_u.
 * @throws DataError when the per-token arrays differ in length or a masked-in teacher logprob is missing.
 */
export function reverseKlAdvantages(
  sampled_T: readonly number[],
  teacher_T: readonly (number | null)[],
  mask_T: readonly number[],
  advantages_T: readonly number[],
  coef: number,
  discount = 0,
): ReverseKlResult {
  const T = sampled_T.length;
  if (teacher_T.length !== T || mask_T.length !== T || advantages_T.length !== T) {
    throw new DataError(
      `reverse KL: ${T} sampled logprobs but ${teacher_T.length} teacher logprobs, ${mask_T.length} mask values and ` +
        `${advantages_T.length} advantages`,
      { field: 'logprobs' },
    );
  }
  const rkl = new Array<number>(T).fill(0);
  let klSum = 0;
  let count = 0;
  for (let t = 0; t < T; t++) {
    const m = mask_T[t]!;
    if (m === 0) continue;
    const teacher = teacher_T[t];
    if (teacher === null || teacher === undefined || !Number.isFinite(teacher)) {
      throw new DataError(`reverse KL: the teacher gave no logprob for action token ${t}`, { field: 'logprobs' });
    }
    rkl[t] = m * (sampled_T[t]! - teacher);
    klSum += rkl[t]!;
    count += m;
  }
  let penalty = rkl;
  if (discount > 0) {
    penalty = new Array<number>(T).fill(0);
    let running = 0;
    for (let t = T - 1; t >= 0; t--) {
      running = rkl[t]! + discount * running;
      penalty[t] = mask_T[t]! * running;
    }
  }
  return { advantages_T: advantages_T.map((a, t) => a - coef * penalty[t]!), klSum, count };
}

/** Options of {@link incorporateTeacherKl}. */
export interface TeacherKlOptions {
  /** Weight of the reverse KL in the advantages. */
  coef: number;
  /** Discount of future reverse KL (0 = each token its own). Default 0. */
  discount?: number;
  /** Most teacher calls in flight. Default 64. */
  concurrency?: number;
}

/**
 * Scores every datum's sequence with its dataset's teacher and folds the reverse KL into its advantages (mutates
 * `data_D`). `datasetOf_D[d]` is the index into `teachers` of datum d. Returns `teacher_kl` (mean reverse KL per
 * action token) and `teacher_kl/dataset_{i}` for each dataset present.
 */
export async function incorporateTeacherKl(
  data_D: Datum[],
  datasetOf_D: readonly number[],
  teachers: readonly LogprobComputer[],
  options: TeacherKlOptions,
): Promise<Record<string, number>> {
  if (datasetOf_D.length !== data_D.length) {
    throw new TrainingError(`${data_D.length} datums but ${datasetOf_D.length} dataset indices`);
  }
  const teacherLogprobs_D = await mapLimit(data_D, options.concurrency ?? 64, async (d, i) => {
    const teacher = teachers[datasetOf_D[i]!];
    if (teacher === undefined) throw new TrainingError(`datum ${i}: no teacher for dataset ${datasetOf_D[i]}`);
    return (await teacher.computeLogprobs(datumFullSequence(d))).slice(1);
  });
  const sums = new Map<number, { kl: number; n: number }>();
  let kl = 0;
  let n = 0;
  data_D.forEach((d, i) => {
    const r = reverseKlAdvantages(
      lossInput(d, 'logprobs'),
      teacherLogprobs_D[i]!,
      lossInput(d, 'mask'),
      lossInput(d, 'advantages'),
      options.coef,
      options.discount ?? 0,
    );
    d.lossFnInputs.advantages = tensorFromFloat32(r.advantages_T);
    const ds = datasetOf_D[i]!;
    const s = sums.get(ds) ?? { kl: 0, n: 0 };
    s.kl += r.klSum;
    s.n += r.count;
    sums.set(ds, s);
    kl += r.klSum;
    n += r.count;
  });
  const metrics: Record<string, number> = { teacher_kl: n > 0 ? kl / n : 0 };
  for (const [ds, s] of [...sums.entries()].sort((a, b) => a[0] - b[0])) {
    metrics[`teacher_kl/dataset_${ds}`] = s.n > 0 ? s.kl / s.n : 0;
  }
  return metrics;
}
