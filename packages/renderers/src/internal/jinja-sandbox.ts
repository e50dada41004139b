/**
 * A chat template compiled once and run with bounds (transformers' sandboxed Jinja environment, on
 * `@huggingface/jinja`). The interpreter has no file system, import or include: a template can only read the
 * variables it is given. Deliberate difference from that runtime: `strip` / `lstrip` / `rstrip` with an argument strip
 * those characters, as in Python (the runtime strips whitespace whatever the argument). Every run is bounded: at most `maxSteps` evaluated nodes, `range()` at most `maxRange`
 * items, and no string longer than `maxChars`; past a bound the run stops with a {@link TemplateRunError}.
 */

import { RendererError } from '@cookbook/core';
import * as jinja from '@huggingface/jinja';

/** Bounds of one template run. */
export interface TemplateLimits {
  /** Evaluated syntax nodes and loop iterations per run. Default 200,000 (about a second of interpreting). */
  maxSteps?: number;
  /** Items one `range()` call may produce. Default 100,000. */
  maxRange?: number;
  /** Characters of any string value, the output included. Default 4,000,000. */
  maxChars?: number;
}

/** Why one template run failed: the template raised, a bound was hit, or the interpreter refused an operation. */
export class TemplateRunError extends Error {
  override name = 'TemplateRunError';
  /** `raise_exception` (the template's own check), `limit` (a bound) or `runtime` (anything else). */
  readonly kind: 'raise_exception' | 'limit' | 'runtime';

  constructor(kind: 'raise_exception' | 'limit' | 'runtime', message: string) {
    super(message);
    this.kind = kind;
  }
}

// The package's declaration files re-export its runtime from extensionless paths, which NodeNext resolution does
// not follow: these are the few shapes used here, checked against its 0.5 runtime.
/** A parsed template (opaque). */
type Program = { readonly type: 'Program' };
/** A syntax node (opaque). */
type Statement = { readonly type: string };
/** A runtime value: `value` holds the JavaScript value. */
type RuntimeValue = { readonly value: unknown };
/** A scope of variables. */
interface Environment {
  set(name: string, value: unknown): unknown;
}
/** A call `callee(args)`; a method call's callee is `object.property`. */
interface CallNode {
  callee: Statement & { computed?: boolean; object: Statement; property: Statement & { value?: unknown } };
  args: Statement[];
}
interface InterpreterBase {
  run(program: Program): RuntimeValue;
  evaluate(statement: Statement | undefined, environment: Environment): RuntimeValue;
}
const Interpreter = jinja.Interpreter as new (env: Environment) => InterpreterBase;
const newEnvironment = () => new (jinja.Environment as new () => Environment)();
const parse = jinja.parse as (tokens: unknown) => Program;
const tokenize = jinja.tokenize as (
  source: string,
  options: { lstrip_blocks: boolean; trim_blocks: boolean },
) => unknown;

/**
 * Counts work: every evaluated node, every loop iteration (a loop body, even an empty one) and, when a `for` loop
 * starts, the length of what it iterates (so a loop left at once by `break` still pays for its list).
 */
class BoundedInterpreter extends Interpreter {
  private steps = 0;
  private readonly iterables = new WeakSet<object>();

  constructor(
    env: Environment,
    private readonly maxSteps: number,
    private readonly maxChars: number,
  ) {
    super(env);
  }

  private charge(n: number): void {
    this.steps += n;
    if (this.steps > this.maxSteps) {
      throw new TemplateRunError(
        'limit',
        `the template ran more than ${this.maxSteps} steps (a loop that does not end?)`,
      );
    }
  }

  override evaluate(statement: Statement | undefined, environment: Environment): RuntimeValue {
    this.charge(1);
    if (statement?.type === 'CallExpression') {
      const stripped = this.pythonStrip(statement as unknown as CallNode, environment);
      if (stripped !== undefined) return stripped;
    }
    if (statement?.type === 'For') {
      const iterable = (statement as unknown as { iterable: Statement & { lhs?: Statement } }).iterable;
      this.iterables.add(iterable.type === 'SelectExpression' && iterable.lhs !== undefined ? iterable.lhs : iterable);
    }
    const value = super.evaluate(statement, environment);
    const v = value.value;
    if (statement !== undefined && this.iterables.has(statement)) {
      this.charge(Array.isArray(v) ? v.length : v instanceof Map ? v.size : 0);
    }
    if (typeof v === 'string' && v.length > this.maxChars) {
      throw new TemplateRunError('limit', `the template built a string of more than ${this.maxChars} characters`);
    }
    return value;
  }

  /**
   * `s.strip(chars)`, `s.lstrip(chars)`, `s.rstrip(chars)` with Python's meaning: the interpreter's own string
   * methods ignore `chars` and strip whitespace (Qwen's `content.lstrip('\n')` would eat leading spaces).
   */
  private pythonStrip(call: CallNode, environment: Environment): RuntimeValue | undefined {
    const callee = call.callee;
    if (callee.type !== 'MemberExpression' || callee.computed || call.args.length !== 1) return undefined;
    const method = callee.property.type === 'Identifier' ? callee.property.value : undefined;
    if (method !== 'strip' && method !== 'lstrip' && method !== 'rstrip') return undefined;
    const target = this.evaluate(callee.object, environment);
    if (typeof target.value !== 'string') return undefined;
    const chars = this.evaluate(call.args[0], environment).value;
    if (typeof chars !== 'string') return undefined;
    let [from, to] = [0, target.value.length];
    if (method !== 'rstrip') while (from < to && chars.includes(target.value[from]!)) from++;
    if (method !== 'lstrip') while (to > from && chars.includes(target.value[to - 1]!)) to--;
    return new (target.constructor as new (value: string) => RuntimeValue)(target.value.slice(from, to));
  }

  /** One loop iteration (or one block of an if / macro): called by the interpreter for each. */
  evaluateBlock(statements: Statement[], environment: Environment): RuntimeValue {
    this.charge(1);
    return (
      Interpreter.prototype as unknown as { evaluateBlock: BoundedInterpreter['evaluateBlock'] }
    ).evaluateBlock.call(this, statements, environment);
  }
}

/** A parsed chat template. */
export class CompiledTemplate {
  /** The name errors give (a file, or a model's tokenizer_config.json). */
  readonly name: string;
  private readonly program: Program;
  private readonly maxSteps: number;
  private readonly maxRange: number;
  private readonly maxChars: number;

  /** @throws RendererError naming the template when it does not parse. */
  constructor(source: string, name: string, limits: TemplateLimits = {}) {
    this.name = name;
    this.maxSteps = limits.maxSteps ?? 200_000;
    this.maxRange = limits.maxRange ?? 100_000;
    this.maxChars = limits.maxChars ?? 4_000_000;
    if (source.length > this.maxChars) {
      throw new RendererError(`chat template ${name} is ${source.length} characters long (limit ${this.maxChars})`);
    }
    try {
      this.program = parse(tokenize(source, { lstrip_blocks: true, trim_blocks: true }));
    } catch (e) {
      throw new RendererError(`chat template ${name} does not parse: ${(e as Error).message}`, { cause: e });
    }
  }

  /** The template's output for `vars`. @throws TemplateRunError. */
  render(vars: Readonly<Record<string, unknown>>, now: Date = new Date()): string {
    const env = newEnvironment();
    const maxRange = this.maxRange;
    env.set('false', false);
    env.set('true', true);
    env.set('none', null);
    env.set('False', false);
    env.set('True', true);
    env.set('None', null);
    env.set('raise_exception', (message: unknown) => {
      throw new TemplateRunError('raise_exception', String(message));
    });
    env.set('range', (start: number, stop?: number, step = 1) => {
      const [lo, hi] = stop === undefined ? [0, start] : [start, stop];
      if (step === 0) throw new TemplateRunError('runtime', 'range() step must not be zero');
      const n = Math.max(0, Math.ceil((hi - lo) / step));
      if (!Number.isFinite(n) || n > maxRange) {
        throw new TemplateRunError('limit', `range(${lo}, ${hi}, ${step}) would hold ${n} items (limit ${maxRange})`);
      }
      return Array.from({ length: n }, (_, i) => lo + i * step);
    });
    env.set('strftime_now', (format: unknown) => strftime(String(format), now));
    for (const [k, v] of Object.entries(vars)) env.set(k, v);
    const interpreter = new BoundedInterpreter(env, this.maxSteps, this.maxChars);
    try {
      const out = interpreter.run(this.program).value;
      return typeof out === 'string' ? out : String(out);
    } catch (e) {
      if (e instanceof TemplateRunError) throw e;
      if (e instanceof RangeError)
        throw new TemplateRunError('limit', `the template exhausted a resource: ${e.message}`);
      throw new TemplateRunError('runtime', (e as Error).message);
    }
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Python's `strftime` for the directives chat templates use (dates only, UTC). */
function strftime(format: string, d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return format.replace(/%([a-zA-Z%])/g, (all, c: string) => {
    switch (c) {
      case 'd':
        return pad(d.getUTCDate());
      case 'm':
        return pad(d.getUTCMonth() + 1);
      case 'Y':
        return String(d.getUTCFullYear());
      case 'y':
        return pad(d.getUTCFullYear() % 100);
      case 'b':
        return MONTHS[d.getUTCMonth()]!;
      case 'B':
        return MONTH_NAMES[d.getUTCMonth()]!;
      case 'A':
        return DAYS[d.getUTCDay()]!;
      case 'a':
        return DAYS[d.getUTCDay()]!.slice(0, 3);
      case '%':
        return '%';
      default:
        return all;
    }
  });
}
