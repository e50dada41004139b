/**
 * The cookbook's error tree (upstream `exceptions.py`: TinkerCookbookError and its subclasses).
 * Every error carries a message that tells the user what to fix: the field, file, line or value.
 */

/** Options accepted by every cookbook error. */
export interface CookbookErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * The marker every cookbook error carries: a global symbol (`Symbol.for('cookbook.error')`), so it survives duplicate
 * copies of a package (`instanceof` does not). `CookbookError.isInstance` checks it.
 */
const MARKER = Symbol.for('cookbook.error');

/** Base class of every error thrown by cookbook packages. */
export class CookbookError extends Error {
  override name = 'CookbookError';
  constructor(message: string, options?: CookbookErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    Object.defineProperty(this, MARKER, { value: true });
  }

  /**
   * Whether `error` is a cookbook error (the engine's errors included: they extend this class), even from another
   * copy of the package (`instanceof` fails across copies; the marker does not).
   */
  static isInstance(error: unknown): error is Error {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** A configuration value is missing, malformed or inconsistent. */
export class ConfigError extends CookbookError {
  override name = 'ConfigError';
  /** The offending key (dotted path), when known. */
  readonly key: string | undefined;
  constructor(message: string, options?: CookbookErrorOptions & { key?: string }) {
    super(message, options);
    this.key = options?.key;
  }
}

/** Options locating a data problem. */
export interface DataErrorOptions extends CookbookErrorOptions {
  /** File the bad record came from. */
  file?: string;
  /** 1-based line number inside `file`. */
  line?: number;
  /** Field (dotted path) inside the record. */
  field?: string;
}

/** Input data (a JSONL line, a dataset row, a datum) is malformed or invalid. */
export class DataError extends CookbookError {
  override name = 'DataError';
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly field: string | undefined;
  constructor(message: string, options?: DataErrorOptions) {
    const where = [
      options?.file === undefined ? undefined : options.file + (options.line === undefined ? '' : `:${options.line}`),
      options?.field === undefined ? undefined : `field "${options.field}"`,
    ]
      .filter((x) => x !== undefined)
      .join(', ');
    super(where ? `${where}: ${message}` : message, options);
    this.file = options?.file;
    this.line = options?.line;
    this.field = options?.field;
  }
}

/** A renderer cannot render or parse a conversation. */
export class RendererError extends CookbookError {
  override name = 'RendererError';
}

/** Training failed (a step, a loop invariant, all trajectories failed, ...). */
export class TrainingError extends CookbookError {
  override name = 'TrainingError';
}

/** A checkpoint cannot be saved, found or loaded. */
export class CheckpointError extends TrainingError {
  override name = 'CheckpointError';
}

/**
 * The user interrupted a run (the first Ctrl-C): the reason `run.signal` is aborted with. A loop that sees it stops
 * at the next step boundary and saves a resumable checkpoint; it is not a failure.
 */
export class InterruptedError extends CookbookError {
  override name = 'InterruptedError';
}
