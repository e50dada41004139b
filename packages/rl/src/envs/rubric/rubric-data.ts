/**
 * Rubric data (upstream `recipes/rubric/data.py`): a datapoint is a conversation the policy continues plus rubric
 * items; a judge model grades the policy's reply against each item. This file holds the pure parts: the JSONL
 * format, the judge prompt, the score extraction and the Prometheus Feedback-Collection mapping.
 *
 * Differences from upstream, on purpose: a missing `extraction_regex` or `grader_output_format_instruction` takes
 * the default (upstream's loader raises on a missing key); every line is validated on load (a regex that does not
 * compile or has no capture group, an empty rubric list, a missing field: an error naming file and line); blank
 * lines are skipped; a message's text is its text parts (a thinking part is not shown to the judge). The regex is Python syntax as far as JavaScript shares it (`(?P<name>…)` is accepted).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { DataError, getTextContent, type Message } from '@cookbook/core';

/** Upstream's default score pattern: the text between the first `<score>` and the next `</score>`. */
export const DEFAULT_EXTRACTION_REGEX = '<score>(.*?)</score>';
/** Upstream's default format instruction (a 0-to-1 score). */
export const DEFAULT_GRADER_OUTPUT_FORMAT_INSTRUCTION =
  'Please output your score between 0 and 1 wrapped in <score> ... </score>';
/** Largest rubric file read (bytes): bound before reading. */
export const MAX_RUBRIC_FILE_BYTES = 256 * 1024 * 1024;

/** One rubric item: what a good reply is, how the judge writes its score, and how the score is read back. */
export interface Rubric {
  rubricStr: string;
  extractionRegex: string;
  graderOutputFormatInstruction: string;
}

/** Where a datapoint came from (for error and warning messages). */
export interface RubricSource {
  file: string;
  line: number;
}

/** A conversation the policy continues and the rubric items its reply is graded on. */
export interface RubricDatapoint {
  convo: Message[];
  rubricItems: Rubric[];
  source?: RubricSource;
}

/** A rubric item with the defaults filled in. */
export function makeRubric(rubricStr: string, options: Partial<Omit<Rubric, 'rubricStr'>> = {}): Rubric {
  return {
    rubricStr,
    extractionRegex: options.extractionRegex ?? DEFAULT_EXTRACTION_REGEX,
    graderOutputFormatInstruction: options.graderOutputFormatInstruction ?? DEFAULT_GRADER_OUTPUT_FORMAT_INSTRUCTION,
  };
}

/** Upstream's speaker names: user and system turns are "Human", every other role "Chatbot". */
function speaker(role: string): string {
  return role === 'user' || role === 'system' ? 'Human' : 'Chatbot';
}

/**
 * The judge's prompt for a conversation whose last message is the reply to grade: one user message with the prior
 * turns as `Human: …` / `Chatbot: …` (or "(No prior context)"), the reply, the rubric, the closing instruction and
 * the item's format instruction — upstream's text line for line.
 */
export function rubricGraderPrompt(rubric: Rubric, convo: readonly Message[]): Message[] {
  const completion = convo.at(-1);
  if (completion === undefined) throw new DataError('rubric: the conversation to grade is empty');
  const context = convo.slice(0, -1);
  const lines = [
    'I will show you a conversation context, a chatbot completion to grade, and a rubric.',
    "Please grade the chatbot's completion based on the rubric.",
    '',
    '<context>',
    context.length > 0
      ? context.map((m) => `${speaker(m.role)}: ${getTextContent(m)}`).join('\n\n')
      : '(No prior context)',
    '</context>',
    '',
    '<completion_to_grade>',
    `Chatbot: ${getTextContent(completion)}`,
    '</completion_to_grade>',
    '',
    '<rubric>',
    rubric.rubricStr,
    '</rubric>',
    '',
    `Please grade the chatbot's completion based on the rubric. ${rubric.graderOutputFormatInstruction}`,
  ];
  return [{ role: 'user', content: lines.join('\n') }];
}

const PY_DIGITS = '\\d(?:_?\\d)*';
const PY_FLOAT = new RegExp(
  `^[+-]?(?:(?:${PY_DIGITS}(?:\\.(?:${PY_DIGITS})?)?|\\.${PY_DIGITS})(?:[eE][+-]?${PY_DIGITS})?|inf|infinity|nan)$`,
  'i',
);

/** Python's `float(text)` for ASCII text: surrounding whitespace, `_` between digits, `inf` / `nan`; else null. */
export function parsePythonFloat(text: string): number | null {
  const s = text.trim();
  if (!PY_FLOAT.test(s)) return null;
  const body = s.replace(/_/g, '').toLowerCase();
  const sign = body.startsWith('-') ? -1 : 1;
  const unsigned = body.replace(/^[+-]/, '');
  if (unsigned === 'inf' || unsigned === 'infinity') return sign * Number.POSITIVE_INFINITY;
  if (unsigned === 'nan') return Number.NaN;
  return Number(body);
}

/** Compiles an extraction regex (Python syntax where JavaScript shares it) with DOTALL, as upstream searches. */
export function compileExtractionRegex(source: string): RegExp {
  const js = source.replace(/\(\?P</g, '(?<').replace(/\(\?P=(\w+)\)/g, '\\k<$1>');
  const re = new RegExp(js, 's');
  // An empty alternative always matches, so exec reports the number of capture groups.
  const groups = (new RegExp(`${js}|`, 's').exec('')?.length ?? 1) - 1;
  if (groups < 1) throw new SyntaxError(`/${source}/ has no capture group: the score is group 1`);
  return re;
}

/**
 * The score in a judge's response: group 1 of the regex's first match read as Python's `float`, or null when there
 * is no match or group 1 is not a number (upstream then warns and scores 0; the env does the same and counts it).
 */
export function extractRubricScore(rubric: Rubric, response: string, compiled?: RegExp): number | null {
  const m = (compiled ?? compileExtractionRegex(rubric.extractionRegex)).exec(response);
  if (m === null) return null;
  return parsePythonFloat(m[1] ?? '');
}

function fail(message: string, file: string, line: number, field?: string): never {
  throw new DataError(message, { file, line, ...(field === undefined ? {} : { field }) });
}

function optionalString(obj: Record<string, unknown>, key: string, file: string, line: number, field: string) {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') fail(`must be a string, got ${JSON.stringify(v)}`, file, line, field);
  return v;
}

/** Parses one JSONL line `{convo, rubric_items}` (1-based `line` for messages). */
export function parseRubricLine(text: string, file: string, line: number): RubricDatapoint {
  let row: unknown;
  try {
    row = JSON.parse(text);
  } catch (err) {
    fail(`invalid JSON: ${err instanceof Error ? err.message : String(err)}`, file, line);
  }
  if (typeof row !== 'object' || row === null || Array.isArray(row))
    fail('each line must be a JSON object', file, line);
  const r = row as Record<string, unknown>;
  if (!Array.isArray(r.convo)) fail('missing or not a list of messages', file, line, 'convo');
  if (r.convo.length === 0) fail('the conversation is empty', file, line, 'convo');
  const convo: Message[] = r.convo.map((m: unknown, i: number) => {
    const msg = m as Record<string, unknown> | null;
    if (typeof msg !== 'object' || msg === null) fail('must be a message object', file, line, `convo[${i}]`);
    if (typeof msg.role !== 'string') fail('missing or not a string', file, line, `convo[${i}].role`);
    if (typeof msg.content !== 'string') fail('missing or not a string', file, line, `convo[${i}].content`);
    return { role: msg.role, content: msg.content };
  });
  if (!Array.isArray(r.rubric_items)) fail('missing or not a list', file, line, 'rubric_items');
  if (r.rubric_items.length === 0)
    fail('the rubric list is empty (a reply needs at least one item)', file, line, 'rubric_items');
  const rubricItems = r.rubric_items.map((it: unknown, i: number) => {
    const item = it as Record<string, unknown> | null;
    const at = `rubric_items[${i}]`;
    if (typeof item !== 'object' || item === null) fail('must be an object', file, line, at);
    if (typeof item.rubric_str !== 'string' || item.rubric_str.trim() === '') {
      fail('missing or empty', file, line, `${at}.rubric_str`);
    }
    const extractionRegex = optionalString(item, 'extraction_regex', file, line, `${at}.extraction_regex`);
    const graderOutputFormatInstruction = optionalString(
      item,
      'grader_output_format_instruction',
      file,
      line,
      `${at}.grader_output_format_instruction`,
    );
    const rubric = makeRubric(item.rubric_str, {
      ...(extractionRegex === undefined ? {} : { extractionRegex }),
      ...(graderOutputFormatInstruction === undefined ? {} : { graderOutputFormatInstruction }),
    });
    try {
      compileExtractionRegex(rubric.extractionRegex);
    } catch (err) {
      fail(
        `does not compile: ${err instanceof Error ? err.message : String(err)}`,
        file,
        line,
        `${at}.extraction_regex`,
      );
    }
    return rubric;
  });
  return { convo, rubricItems, source: { file, line } };
}

/** Reads a rubric JSONL file (one datapoint per non-blank line); errors name the file and line. */
export function readRubricJsonl(path: string): RubricDatapoint[] {
  if (!existsSync(path)) throw new DataError('rubric data file not found', { file: path });
  const st = statSync(path);
  if (st.isDirectory()) throw new DataError('is a folder; expected a .jsonl file', { file: path });
  if (st.size > MAX_RUBRIC_FILE_BYTES) {
    throw new DataError(`is ${st.size} bytes; the limit is ${MAX_RUBRIC_FILE_BYTES}`, { file: path });
  }
  return parseRubricJsonl(readFileSync(path, 'utf8'), path);
}

/** Parses rubric JSONL text; `file` names the source in errors. */
export function parseRubricJsonl(text: string, file: string): RubricDatapoint[] {
  const out: RubricDatapoint[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    out.push(parseRubricLine(raw, file, i + 1));
  });
  if (out.length === 0) throw new DataError('holds no datapoints', { file });
  return out;
}

/** A datapoint as upstream's `to_json` writes it (Python `json.dumps` spacing, ASCII escapes). */
export function rubricDatapointToJson(d: RubricDatapoint): string {
  return pyJsonDumps({
    convo: d.convo.map((m) => ({ role: m.role, content: getTextContent(m) })),
    rubric_items: d.rubricItems.map((r) => ({
      rubric_str: r.rubricStr,
      extraction_regex: r.extractionRegex,
      grader_output_format_instruction: r.graderOutputFormatInstruction,
    })),
  });
}

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

/** Python's `json.dumps` with its defaults (`", "` and `": "` separators, non-ASCII escaped). */
export function pyJsonDumps(v: Json): string {
  if (typeof v === 'string') {
    return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pyJsonDumps).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${pyJsonDumps(k)}: ${pyJsonDumps(x)}`)
    .join(', ')}}`;
}

/** The Prometheus Feedback-Collection fields a row needs. */
const PROMETHEUS_FIELDS = [
  'orig_instruction',
  'orig_criteria',
  'orig_score1_description',
  'orig_score2_description',
  'orig_score3_description',
  'orig_score4_description',
  'orig_score5_description',
  'orig_reference_answer',
] as const;

/**
 * A Prometheus Feedback-Collection row as upstream maps it: the instruction is the user turn; one rubric item with
 * the criteria, the 1–5 calibration (`<score>i.0</score>: …`), the score-5 reference answer and a 1-to-5 instruction.
 */
export function prometheusDatapoint(row: Record<string, unknown>, where = 'Feedback-Collection row'): RubricDatapoint {
  for (const f of PROMETHEUS_FIELDS) {
    if (typeof row[f] !== 'string') throw new DataError(`${where}: missing or not a string`, { field: f });
  }
  const s = (k: (typeof PROMETHEUS_FIELDS)[number]) => row[k] as string;
  const lines = [
    `Your job is to evaluate the following: ${s('orig_criteria')}. Your response should be a score between 1 to 5.`,
    'Here is the calibration for each score:',
  ];
  for (let i = 1; i <= 5; i++) {
    lines.push(`<score>${i}.0</score>: ${s(`orig_score${i}_description` as (typeof PROMETHEUS_FIELDS)[number])}`);
  }
  lines.push(`Here is a reference response that achieved a score of 5: ${s('orig_reference_answer')}`);
  return {
    convo: [{ role: 'user', content: s('orig_instruction') }],
    rubricItems: [
      makeRubric(lines.join('\n'), {
        extractionRegex: DEFAULT_EXTRACTION_REGEX,
        graderOutputFormatInstruction: 'Please output your score between 1 and 5 wrapped in <score> ... </score>',
      }),
    ],
  };
}

/** The Hub data set upstream's Prometheus recipe trains on. */
export const PROMETHEUS_DATASET = 'prometheus-eval/Feedback-Collection';
