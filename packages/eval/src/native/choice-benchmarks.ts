/**
 * Upstream's multiple-choice benchmarks: MMLU-Pro, MMLU-Redux (with per-subject accuracy), GPQA-Diamond, C-Eval and
 * SuperGPQA — upstream's prompts, letters, example ids and extraction (`extractMcqAnswer`).
 *
 * One deliberate difference: GPQA. Upstream lists the correct answer first and the three incorrect ones after it
 * (the dataset has no shuffled choice columns), so its correct letter is always (A). Here the four choices are
 * shuffled with a seeded generator keyed by the example id (the same order on every run and machine), so a model
 * that always answers (A) scores about 25%, not 100%.
 */
import { createHash } from 'node:crypto';
import type { BenchmarkExample } from '../benchmark.js';
import {
  accuracyBy,
  buildMessages,
  formatMcqChoices,
  makeExampleId,
  metaString,
  type NativeBenchmarkSpec,
  RowError,
  requiredString,
  stringField,
  stringListField,
  UPSTREAM_DEFAULTS,
} from './native-benchmark.js';
import { extractMcqAnswer } from './upstream-graders.js';

const THINK_LETTER = 'Think step by step, then give your final answer as a single letter (A, B, C, or D).';

function letter(i: number): string {
  return String.fromCharCode(65 + i);
}

function gradeLetter(response: string, example: BenchmarkExample) {
  const valid = typeof example.metadata?.valid_letters === 'string' ? example.metadata.valid_letters : 'ABCD';
  const extracted = extractMcqAnswer(response, valid);
  const correct = extracted === example.answer;
  return { correct, score: correct ? 1 : 0, extracted };
}

/** MMLU-Pro (`TIGER-Lab/MMLU-Pro`, test): up to ten options, letters A–J. */
export const mmluPro: NativeBenchmarkSpec = {
  name: 'mmlu_pro',
  description: 'MMLU-Pro professional multiple choice, up to 10 options (A–J)',
  dataset: 'TIGER-Lab/MMLU-Pro',
  split: 'test',
  metric: 'accuracy (letter match)',
  defaults: UPSTREAM_DEFAULTS,
  toExample(row, { systemPrompt }) {
    const question = requiredString(row, 'question', 'input');
    const choices = stringListField(row, 'options', 'choices');
    const raw = row.answer_index ?? row.answer;
    const prompt =
      choices.length > 0
        ? `${question}\n\n${formatMcqChoices(choices)}\n\nAnswer with just the letter (A, B, C, D, etc.).`
        : `${question}\n\nAnswer with just the letter.`;
    let expected: string;
    if (typeof raw === 'number' && Number.isInteger(raw)) expected = letter(raw);
    else if (typeof raw === 'string') expected = raw.trim().toUpperCase();
    else throw new RowError('answer_index', `an integer or a letter, got ${JSON.stringify(raw)}`);
    const qid = row.question_id;
    return {
      id: qid !== undefined && qid !== null ? `mmlu_pro_${String(qid)}` : makeExampleId('mmlu_pro', question),
      messages: buildMessages(prompt, systemPrompt),
      answer: expected,
      choices,
      metadata: { valid_letters: 'ABCDEFGHIJ', category: row.category },
    };
  },
  grade: gradeLetter,
  subset: { shuffle: 'datasets', seed: 42 },
};

/** The 30 MMLU-Redux subjects (one dataset config each). */
export const MMLU_REDUX_SUBJECTS: readonly string[] = [
  'anatomy',
  'astronomy',
  'business_ethics',
  'clinical_knowledge',
  'college_chemistry',
  'college_computer_science',
  'college_mathematics',
  'college_medicine',
  'college_physics',
  'conceptual_physics',
  'econometrics',
  'electrical_engineering',
  'formal_logic',
  'global_facts',
  'high_school_chemistry',
  'high_school_geography',
  'high_school_macroeconomics',
  'high_school_mathematics',
  'high_school_physics',
  'high_school_statistics',
  'high_school_us_history',
  'human_aging',
  'logical_fallacies',
  'machine_learning',
  'miscellaneous',
  'philosophy',
  'professional_accounting',
  'professional_law',
  'public_relations',
  'virology',
];

/** Upstream's MMLU-Redux filter: a row without `error_type` or with "ok" (a null one is left out, as upstream does). */
function reduxRowKept(row: Record<string, unknown>): boolean {
  return !Object.hasOwn(row, 'error_type') || row.error_type === 'ok';
}

/** MMLU-Redux (`edinburgh-dawg/mmlu-redux`, 30 subject configs, test): rows with `error_type` "ok" only. */
export const mmluRedux: NativeBenchmarkSpec = {
  name: 'mmlu_redux',
  description: 'MMLU-Redux re-annotated MMLU (30 subjects, error-free rows), per-subject accuracy',
  dataset: 'edinburgh-dawg/mmlu-redux',
  configs: MMLU_REDUX_SUBJECTS,
  split: 'test',
  metric: 'accuracy (letter match), plus mmlu_redux/<subject>/accuracy',
  defaults: UPSTREAM_DEFAULTS,
  toExample(row, { config, systemPrompt }) {
    if (!reduxRowKept(row)) return undefined;
    const question = requiredString(row, 'question');
    const choices = stringListField(row, 'choices');
    if (choices.length === 0) throw new RowError('choices', 'a non-empty list of choices');
    const raw = row.answer ?? 0;
    const idx = typeof raw === 'number' ? raw : Number.parseInt(String(raw), 10);
    if (!Number.isInteger(idx)) throw new RowError('answer', `a choice index, got ${JSON.stringify(raw)}`);
    const prompt = `${question}\n\n${formatMcqChoices(choices)}\n\nAnswer with just the letter (A, B, C, or D).`;
    return {
      id: makeExampleId('mmlu_redux', question),
      messages: buildMessages(prompt, systemPrompt),
      answer: letter(idx),
      choices,
      metadata: { subject: config ?? stringField(row, 'subject') },
    };
  },
  grade: gradeLetter,
  aggregate(samples) {
    const n = samples.length;
    const c = samples.filter((s) => s.correct).length;
    return {
      'mmlu_redux/accuracy': n > 0 ? c / n : 0,
      ...accuracyBy(samples, 'mmlu_redux', (e) => metaString(e, 'subject')),
    };
  },
  subset: { shuffle: 'python-random', seed: 42, keep: reduxRowKept },
};

/** A permutation of 0..n-1 drawn from sha256(`key`), the same on every machine. */
export function keyedPermutation(n: number, key: string): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let block = createHash('sha256').update(key).digest();
  let used = 0;
  for (let i = n - 1; i > 0; i--) {
    if (used + 4 > block.length) {
      block = createHash('sha256').update(block).digest();
      used = 0;
    }
    const j = block.readUInt32BE(used) % (i + 1);
    used += 4;
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** GPQA-Diamond (`Idavidrein/gpqa`, gpqa_diamond, train): four choices, shuffled by a seed (see the module note). */
export const gpqa: NativeBenchmarkSpec = {
  name: 'gpqa',
  description: 'GPQA-Diamond graduate-level science (198 questions); choices shuffled with a fixed seed',
  dataset: 'Idavidrein/gpqa',
  configs: ['gpqa_diamond'],
  split: 'train',
  metric: 'accuracy (letter match)',
  defaults: UPSTREAM_DEFAULTS,
  toExample(row, { systemPrompt }) {
    const question = requiredString(row, 'Question');
    const correct = requiredString(row, 'Correct Answer');
    const wrong = [1, 2, 3].map((i) => stringField(row, `Incorrect Answer ${i}`)).filter((c) => c !== '');
    const id = makeExampleId('gpqa', question);
    const listed = [correct, ...wrong];
    const order = keyedPermutation(listed.length, `gpqa-choices|${id}`);
    const choices = order.map((i) => listed[i]!);
    const prompt = `${question}\n\n${formatMcqChoices(choices)}\n\n${THINK_LETTER}`;
    return {
      id,
      messages: buildMessages(prompt, systemPrompt),
      answer: letter(order.indexOf(0)),
      choices,
    };
  },
  grade: gradeLetter,
};

/** The 52 C-Eval subjects (one dataset config each). */
export const CEVAL_SUBJECTS: readonly string[] = [
  'computer_network',
  'operating_system',
  'computer_architecture',
  'college_programming',
  'college_physics',
  'college_chemistry',
  'advanced_mathematics',
  'probability_and_statistics',
  'discrete_mathematics',
  'electrical_engineer',
  'metrology_engineer',
  'high_school_mathematics',
  'high_school_physics',
  'high_school_chemistry',
  'high_school_biology',
  'middle_school_mathematics',
  'middle_school_biology',
  'middle_school_physics',
  'middle_school_chemistry',
  'veterinary_medicine',
  'college_economics',
  'business_administration',
  'marxism',
  'mao_zedong_thought',
  'education_science',
  'teacher_qualification',
  'high_school_politics',
  'high_school_geography',
  'middle_school_politics',
  'middle_school_geography',
  'modern_chinese_history',
  'ideological_and_moral_cultivation',
  'logic',
  'law',
  'chinese_language_and_literature',
  'art_studies',
  'professional_tour_guide',
  'legal_professional',
  'high_school_chinese',
  'high_school_history',
  'middle_school_history',
  'civil_servant',
  'sports_science',
  'plant_protection',
  'basic_medicine',
  'clinical_medicine',
  'urban_and_rural_planner',
  'accountant',
  'fire_engineer',
  'environmental_impact_assessment_engineer',
  'tax_accountant',
  'physician',
];

/** C-Eval (`ceval/ceval-exam`, 52 subject configs, val split). */
export const ceval: NativeBenchmarkSpec = {
  name: 'ceval',
  description: 'C-Eval Chinese exam questions (52 subjects, validation split)',
  dataset: 'ceval/ceval-exam',
  configs: CEVAL_SUBJECTS,
  split: 'val',
  metric: 'accuracy (letter match)',
  defaults: UPSTREAM_DEFAULTS,
  toExample(row, { config, systemPrompt }) {
    const question = requiredString(row, 'question');
    const answer = requiredString(row, 'answer');
    const choices = ['A', 'B', 'C', 'D'].map((k) => stringField(row, k)).filter((c) => c !== '');
    if (choices.length < 2) throw new RowError('A', 'at least two of the choices A, B, C, D');
    const prompt = `${question}\n\n${formatMcqChoices(choices)}\n\n${THINK_LETTER}`;
    return {
      id: makeExampleId('ceval', question),
      messages: buildMessages(prompt, systemPrompt),
      answer: answer.trim().toUpperCase(),
      choices,
      metadata: { subject: config ?? stringField(row, 'subject') },
    };
  },
  grade: gradeLetter,
  subset: { shuffle: 'python-random', seed: 42 },
};

/** SuperGPQA (`m-a-p/SuperGPQA`, train): 4 to 10 options. */
export const supergpqa: NativeBenchmarkSpec = {
  name: 'supergpqa',
  description: 'SuperGPQA graduate-level questions in 285 disciplines, 4 to 10 options',
  dataset: 'm-a-p/SuperGPQA',
  split: 'train',
  metric: 'accuracy (letter match)',
  defaults: UPSTREAM_DEFAULTS,
  toExample(row, { systemPrompt }) {
    const question = requiredString(row, 'question');
    const options = stringListField(row, 'options');
    if (options.length === 0) throw new RowError('options', 'a non-empty list of options');
    const answer = requiredString(row, 'answer_letter');
    const valid = options.map((_, i) => letter(i)).join('');
    const prompt =
      `${question}\n\n${formatMcqChoices(options)}\n\n` +
      `Think step by step, then give your final answer as a single letter (${[...valid].join(', ')}).`;
    return {
      id: stringField(row, 'uuid') || makeExampleId('supergpqa', question),
      messages: buildMessages(prompt, systemPrompt),
      answer: answer.trim().toUpperCase(),
      choices: options,
      metadata: { valid_letters: valid, discipline: stringField(row, 'discipline') },
    };
  },
  grade: gradeLetter,
  subset: { shuffle: 'datasets', seed: 42 },
};
