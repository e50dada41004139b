/**
 * LiveCodeBench's test cases as `code_generation_lite` stores them: `public_test_cases` is a JSON list of
 * `{input, output, testtype}` (`stdin` or `functional`); `private_test_cases` is that list JSON-encoded, pickled (a
 * Python `str`), zlib-compressed and base64-encoded (or, in some rows, plain JSON); `metadata` is a JSON object whose
 * `func_name` names the function of functional problems. Older rows carry `input_output` instead: a JSON object
 * `{inputs, outputs, fn_name?}` (the APPS form). Everything here turns one of these into the grader's
 * {@link CodeTests}; a row that does not decode is a {@link RowError} naming its field.
 */
import { inflateSync } from 'node:zlib';
import { type CodeTests, MAX_TESTS_PER_PROBLEM, parseCodeTests } from '@cookbook/sandbox';
import { RowError } from './native-benchmark.js';

/** Most bytes a decompressed `private_test_cases` cell may have (LiveCodeBench's largest are tens of MB). */
export const MAX_PRIVATE_TESTS_BYTES = 256 * 1024 * 1024;

/**
 * The `str` of a pickle that holds exactly one string (protocols 2–5, as `pickle.dumps(some_str)` writes it), or
 * undefined when the bytes are anything else. No other pickle opcode is accepted: nothing is ever executed.
 */
export function unpickleString(bytes: Uint8Array): string | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  let value: string | undefined;
  const take = (n: number): Buffer | undefined => {
    if (n < 0 || at + n > view.length) return undefined;
    const out = view.subarray(at, at + n);
    at += n;
    return out;
  };
  const length = (bytesOfLength: number): number | undefined => {
    const b = take(bytesOfLength);
    if (b === undefined) return undefined;
    if (bytesOfLength === 1) return b[0]!;
    if (bytesOfLength === 4) return b.readUInt32LE(0);
    const big = b.readBigUInt64LE(0);
    return big > BigInt(view.length) ? undefined : Number(big);
  };
  while (at < view.length) {
    const op = view[at++]!;
    switch (op) {
      case 0x80: // PROTO n
        if (take(1) === undefined) return undefined;
        break;
      case 0x95: // FRAME (8-byte length): the frame's bytes follow inline
        if (take(8) === undefined) return undefined;
        break;
      case 0x8c: // SHORT_BINUNICODE
      case 0x58: // BINUNICODE ('X')
      case 0x8d: {
        // BINUNICODE8
        if (value !== undefined) return undefined;
        const n = length(op === 0x8c ? 1 : op === 0x58 ? 4 : 8);
        const b = n === undefined ? undefined : take(n);
        if (b === undefined) return undefined;
        value = b.toString('utf8');
        break;
      }
      case 0x94: // MEMOIZE
        break;
      case 0x71: // BINPUT ('q')
        if (take(1) === undefined) return undefined;
        break;
      case 0x72: // LONG_BINPUT ('r')
        if (take(4) === undefined) return undefined;
        break;
      case 0x2e: // STOP ('.')
        return at === view.length ? value : undefined;
      default:
        return undefined;
    }
  }
  return undefined;
}

/** One `private_test_cases` cell: plain JSON, or base64(zlib(pickle(json))) as LiveCodeBench publishes it. */
export function decodePrivateTests(cell: string): unknown {
  const trimmed = cell.trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch (e) {
      throw new RowError('private_test_cases', `JSON test cases (${(e as Error).message})`);
    }
  }
  let json: string | undefined;
  try {
    const raw = inflateSync(Buffer.from(trimmed, 'base64'), { maxOutputLength: MAX_PRIVATE_TESTS_BYTES });
    json = unpickleString(raw);
  } catch {
    json = undefined;
  }
  if (json === undefined) {
    throw new RowError('private_test_cases', 'JSON, or base64 of zlib-compressed pickled JSON (a pickled str)');
  }
  try {
    return JSON.parse(json);
  } catch (e) {
    throw new RowError('private_test_cases', `pickled JSON test cases (${(e as Error).message})`);
  }
}

interface LcbCase {
  input: string;
  output: string;
  testtype: string;
}

function caseList(value: unknown, field: string): LcbCase[] {
  let v = value;
  if (typeof v === 'string') {
    if (v.trim() === '') return [];
    try {
      v = JSON.parse(v);
    } catch (e) {
      throw new RowError(field, `a JSON list of test cases (${(e as Error).message})`);
    }
  }
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new RowError(field, 'a list of {input, output, testtype} test cases');
  return v.map((c, i) => {
    const r = c as Record<string, unknown> | null;
    if (typeof r !== 'object' || r === null || typeof r.input !== 'string' || typeof r.output !== 'string') {
      throw new RowError(field, `test case ${i} to be {input: string, output: string, testtype}`);
    }
    return { input: r.input, output: r.output, testtype: typeof r.testtype === 'string' ? r.testtype : 'stdin' };
  });
}

function funcName(metadata: unknown): string | undefined {
  let m = metadata;
  if (typeof m === 'string') {
    if (m.trim() === '') return undefined;
    try {
      m = JSON.parse(m);
    } catch (e) {
      throw new RowError('metadata', `a JSON object (${(e as Error).message})`);
    }
  }
  if (typeof m !== 'object' || m === null) return undefined;
  const name = (m as Record<string, unknown>).func_name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function checked(value: unknown, field: string): CodeTests {
  try {
    return parseCodeTests(value);
  } catch (e) {
    throw new RowError(field, `valid tests: ${(e as Error).message}`);
  }
}

/**
 * The tests of one LiveCodeBench row: `input_output` when present (APPS form), else the public and the private test
 * cases together. Functional cases are called as `func_name` of `metadata` (each input's lines are the JSON
 * arguments); a row mixing stdin and functional cases, or functional cases without a `func_name`, is a RowError.
 */
export function liveCodeBenchTests(row: Record<string, unknown>): CodeTests {
  const legacy = row.input_output;
  if (legacy !== undefined && legacy !== null && legacy !== '') return checked(legacy, 'input_output');
  const privateCell = row.private_test_cases;
  const cases = [
    ...caseList(row.public_test_cases, 'public_test_cases'),
    ...(typeof privateCell === 'string'
      ? caseList(decodePrivateTests(privateCell), 'private_test_cases')
      : caseList(privateCell, 'private_test_cases')),
  ];
  if (cases.length === 0) throw new RowError('public_test_cases', 'at least one test case');
  if (cases.length > MAX_TESTS_PER_PROBLEM) {
    throw new RowError('private_test_cases', `at most ${MAX_TESTS_PER_PROBLEM} test cases (got ${cases.length})`);
  }
  const functional = cases.filter((c) => c.testtype === 'functional').length;
  if (functional !== 0 && functional !== cases.length) {
    throw new RowError('public_test_cases', 'test cases of one type (stdin or functional), not both');
  }
  const fnName = functional > 0 ? funcName(row.metadata) : undefined;
  if (functional > 0 && fnName === undefined) throw new RowError('metadata', 'a func_name for functional tests');
  return checked(
    {
      inputs: cases.map((c) => c.input),
      outputs: cases.map((c) => c.output),
      ...(fnName === undefined ? {} : { fn_name: fnName }),
    },
    'public_test_cases',
  );
}
