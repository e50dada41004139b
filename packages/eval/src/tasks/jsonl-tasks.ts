/**
 * Benchmark task files: JSON lines, one example per line —
 * `{"id", "question" | "messages", "answer", "choices"?, "instructions"?, "turns"?, "grader"?, "system"?, …}` —
 * validated with errors that name the file, the line and the field. Unknown fields are kept as metadata.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { ConfigError, DataError, type Message } from '@cookbook/core';
import type { Benchmark, BenchmarkExample, FollowUpTurn, Grader, GradeTarget } from '../benchmark.js';
import { autoGraderName, GRADERS, graderNamed } from '../graders/graders.js';
import { assertSupportedInstruction, type InstructionSpec } from '../graders/instructions.js';

/** Largest task file read (bytes). */
export const MAX_TASK_FILE_BYTES = 256 * 1024 * 1024;
/** Largest example (characters of one line). */
export const MAX_TASK_LINE_CHARS = 4 * 1024 * 1024;
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
/** Graders that check `instructions` instead of an answer. */
const INSTRUCTION_GRADERS = new Set(['instructions', 'instructions_loose', 'instructions_all']);

const KNOWN_FIELDS = new Set([
  'id',
  'question',
  'messages',
  'system',
  'answer',
  'choices',
  'instructions',
  'instruction_id_list',
  'kwargs',
  'turns',
  'grader',
]);
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

interface Where {
  file: string;
  line: number;
}

function fail(where: Where, field: string, message: string): never {
  throw new DataError(message, { file: where.file, line: where.line, field });
}

function parseAnswer(v: unknown, where: Where, field: string): string | string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' || typeof x === 'number')) {
    return v.map(String);
  }
  return fail(where, field, `expected a string, a number or a non-empty list of them, got ${JSON.stringify(v)}`);
}

function parseInstructions(
  record: Record<string, unknown>,
  where: Where,
  field: string,
): InstructionSpec[] | undefined {
  let specs: InstructionSpec[] | undefined;
  if (record.instructions !== undefined) {
    const v = record.instructions;
    if (!Array.isArray(v)) fail(where, field, 'expected a list of {"id", "kwargs"} objects');
    specs = v.map((item, i) => {
      if (typeof item === 'string') return { id: item };
      if (typeof item !== 'object' || item === null || typeof (item as { id?: unknown }).id !== 'string') {
        return fail(where, `${field}[${i}]`, 'expected {"id": "<instruction id>", "kwargs": {...}}');
      }
      const kw = (item as { kwargs?: unknown }).kwargs;
      if (kw !== undefined && kw !== null && (typeof kw !== 'object' || Array.isArray(kw))) {
        fail(where, `${field}[${i}].kwargs`, 'expected an object');
      }
      return { id: (item as { id: string }).id, kwargs: (kw ?? {}) as Record<string, unknown> };
    });
  } else if (record.instruction_id_list !== undefined) {
    // google/IFEval rows: parallel lists of ids and keyword arguments.
    const ids = record.instruction_id_list;
    const kwargs = record.kwargs ?? [];
    if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string')) {
      fail(where, 'instruction_id_list', 'expected a list of instruction ids');
    }
    if (!Array.isArray(kwargs)) fail(where, 'kwargs', 'expected a list of objects, one per instruction');
    specs = (ids as string[]).map((id, i) => ({ id, kwargs: (kwargs[i] ?? {}) as Record<string, unknown> }));
  }
  specs?.forEach((s, i) => {
    try {
      assertSupportedInstruction(s, `${field}[${i}]`);
    } catch (error) {
      fail(where, `${field}[${i}].id`, (error as Error).message.replace(/^field "[^"]*": /, ''));
    }
  });
  return specs;
}

function parseMessagesField(v: unknown, where: Where): Message[] {
  if (!Array.isArray(v) || v.length === 0) fail(where, 'messages', 'expected a non-empty list of {"role", "content"}');
  return v.map((m, i) => {
    if (typeof m !== 'object' || m === null) fail(where, `messages[${i}]`, 'expected {"role", "content"}');
    const { role, content } = m as { role?: unknown; content?: unknown };
    if (typeof role !== 'string' || !ROLES.has(role)) {
      fail(where, `messages[${i}].role`, `expected one of ${[...ROLES].join(', ')}, got ${JSON.stringify(role)}`);
    }
    if (typeof content !== 'string') fail(where, `messages[${i}].content`, 'expected a string');
    return { role, content } as Message;
  });
}

/** The question with its choices listed as `A. …` and the answer-format line (how multiple choice is asked). */
export function formatMultipleChoice(question: string, choices: readonly string[]): string {
  const listed = choices.map((c, i) => `${LETTERS[i]}. ${c}`).join('\n');
  return `${question}\n\n${listed}\n\nAnswer with the letter of the correct choice.`;
}

/**
 * One task line as an example. `defaultGrader` is the grader name used when the line names none (`auto`: by the
 * example's shape); it decides which fields are required.
 */
export function parseTaskRecord(record: unknown, where: Where, defaultGrader = 'auto'): BenchmarkExample {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    fail(where, '(line)', 'expected a JSON object like {"id": "1", "question": "…", "answer": "…"}');
  }
  const r = record as Record<string, unknown>;
  let id: string;
  if (r.id === undefined) id = String(where.line);
  else if (typeof r.id === 'string' && r.id.length > 0) id = r.id;
  else if (typeof r.id === 'number' && Number.isFinite(r.id)) id = String(r.id);
  else fail(where, 'id', `expected a non-empty string or a number, got ${JSON.stringify(r.id)}`);

  let choices: string[] | undefined;
  if (r.choices !== undefined) {
    if (!Array.isArray(r.choices) || r.choices.length < 2 || r.choices.length > 26) {
      fail(where, 'choices', 'expected a list of 2 to 26 strings');
    }
    choices = r.choices.map((c, i) => {
      if (typeof c !== 'string' && typeof c !== 'number') fail(where, `choices[${i}]`, 'expected a string');
      return String(c);
    });
  }
  let messages: Message[];
  if (r.messages !== undefined && r.question !== undefined)
    fail(where, 'question', 'give "question" or "messages", not both');
  if (r.messages !== undefined) messages = parseMessagesField(r.messages, where);
  else if (typeof r.question === 'string' && r.question.trim() !== '') {
    messages = [{ role: 'user', content: choices ? formatMultipleChoice(r.question, choices) : r.question }];
  } else if (r.question !== undefined) fail(where, 'question', 'expected a non-empty string');
  else fail(where, 'question', 'missing: every example needs "question" (a string) or "messages" (a list)');
  if (r.system !== undefined) {
    if (typeof r.system !== 'string') fail(where, 'system', 'expected a string');
    if (messages[0]?.role === 'system') fail(where, 'system', '"messages" already starts with a system message');
    messages = [{ role: 'system', content: r.system }, ...messages];
  }
  if (messages.at(-1)?.role !== 'user') fail(where, 'messages', 'the last message must be a user message');

  const target: GradeTarget = {
    answer: parseAnswer(r.answer, where, 'answer'),
    choices,
    instructions: parseInstructions(r, where, r.instructions !== undefined ? 'instructions' : 'instruction_id_list'),
  };
  let turns: FollowUpTurn[] | undefined;
  if (r.turns !== undefined) {
    if (!Array.isArray(r.turns)) fail(where, 'turns', 'expected a list of {"content", "answer"} objects');
    turns = r.turns.map((t, i) => {
      const f = `turns[${i}]`;
      if (typeof t !== 'object' || t === null || typeof (t as { content?: unknown }).content !== 'string') {
        return fail(where, `${f}.content`, 'expected {"content": "<next user message>", "answer": …}');
      }
      const tr = t as Record<string, unknown>;
      return {
        content: tr.content as string,
        answer: parseAnswer(tr.answer, where, `${f}.answer`),
        instructions: parseInstructions(tr, where, `${f}.instructions`),
      };
    });
  }
  let grader: string | undefined;
  if (r.grader !== undefined) {
    if (typeof r.grader !== 'string' || !(r.grader in GRADERS)) {
      fail(
        where,
        'grader',
        `unknown grader ${JSON.stringify(r.grader)}; choose one of ${Object.keys(GRADERS).join(', ')}`,
      );
    }
    grader = r.grader;
  }
  const gname = grader ?? (defaultGrader === 'auto' ? autoGraderName(target) : defaultGrader);
  const byInstructions = INSTRUCTION_GRADERS.has(gname);
  const checkTarget = (t: GradeTarget, field: string) => {
    if (byInstructions && !t.instructions?.length) {
      fail(
        where,
        field === 'answer' ? 'instructions' : field.replace('answer', 'instructions'),
        `grader ${gname} needs instructions`,
      );
    }
    if (!byInstructions && gname !== 'custom' && t.answer === undefined) {
      fail(where, field, `missing: grader ${gname} needs a reference answer`);
    }
  };
  checkTarget(target, 'answer');
  for (const [i, t] of (turns ?? []).entries()) checkTarget(t, `turns[${i}].answer`);

  const metadata = Object.fromEntries(Object.entries(r).filter(([k]) => !KNOWN_FIELDS.has(k)));
  return {
    id,
    messages,
    ...(target.answer !== undefined ? { answer: target.answer } : {}),
    ...(choices ? { choices } : {}),
    ...(target.instructions ? { instructions: target.instructions } : {}),
    ...(turns ? { turns } : {}),
    ...(grader ? { grader } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/** Examples of a JSONL task file (blank lines skipped); throws DataError naming file, line and field. */
export function readTaskFile(path: string, defaultGrader = 'auto'): BenchmarkExample[] {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    throw new DataError(`cannot read the task file (${(error as Error).message})`, { file: path, cause: error });
  }
  if (size > MAX_TASK_FILE_BYTES) {
    throw new DataError(`task file is ${size} bytes; the limit is ${MAX_TASK_FILE_BYTES}`, { file: path });
  }
  const lines = readFileSync(path, 'utf8').split('\n');
  const examples: BenchmarkExample[] = [];
  const seen = new Map<string, number>();
  for (const [i, raw] of lines.entries()) {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') continue;
    const where = { file: path, line: i + 1 };
    if (text.length > MAX_TASK_LINE_CHARS) fail(where, '(line)', `line longer than ${MAX_TASK_LINE_CHARS} characters`);
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (error) {
      fail(where, '(line)', `invalid JSON (${(error as Error).message})`);
    }
    const ex = parseTaskRecord(record, where, defaultGrader);
    const prev = seen.get(ex.id);
    if (prev !== undefined) fail(where, 'id', `duplicate id ${JSON.stringify(ex.id)} (first on line ${prev})`);
    seen.set(ex.id, i + 1);
    examples.push(ex);
  }
  if (examples.length === 0) throw new DataError('the task file has no examples', { file: path });
  return examples;
}

/** The benchmark name of a task file: its base name without `.jsonl`. */
export function taskFileName(path: string): string {
  return basename(path).replace(/\.(jsonl|json)$/i, '');
}

/** Options of {@link benchmarkFromTaskFile}. */
export interface TaskFileBenchmarkOptions {
  /** Benchmark name; default: the file's base name. */
  name?: string;
  /** Grader name for examples that name none (`auto` = by shape), or a grader function. Default `auto`. */
  grader?: string | Grader;
}

/** A benchmark from a JSONL task file. */
export function benchmarkFromTaskFile(path: string, options: TaskFileBenchmarkOptions = {}): Benchmark {
  const g = options.grader ?? 'auto';
  const examples = readTaskFile(path, typeof g === 'string' ? g : 'custom');
  return benchmarkFromExamples(options.name ?? taskFileName(path), examples, g);
}

/** A benchmark over `examples` graded by `grader` (a name, `auto`, or a function). */
export function benchmarkFromExamples(
  name: string,
  examples: readonly BenchmarkExample[],
  grader: string | Grader = 'auto',
): Benchmark {
  if (!/^[\w.-]+$/.test(name)) {
    throw new ConfigError(`benchmark name "${name}" may only hold letters, digits, "_", "-" and "."`, {
      key: 'benchmarks',
    });
  }
  const byShape: Grader = (input) => graderNamed(autoGraderName(input.target))(input);
  const base = typeof grader === 'function' ? grader : grader === 'auto' ? byShape : graderNamed(grader);
  return { name, examples, grader: base, graderByName: (n) => GRADERS[n] };
}
