/**
 * The few fields the rollout index needs, read from one rollout summary line's bytes without building the record.
 * Parsing each line with `JSON.parse` builds every string, token text and logprob of it only to drop them; this
 * scanner walks the line once, checks it is one well-formed JSON object (an ill-formed line is refused, as
 * `JSON.parse` refuses it), and decodes only: `iteration`, `group_idx`, `traj_idx`, `total_reward`,
 * `rollouts_total` (numbers), `tags` (strings), `truncation` (a string), the number of `steps` and whether a step's
 * `logs` say the episode was cut (`stop_reason: "length"`, `truncated: 1` or `true`). Each field reads as
 * `JSON.parse` would give it (the last of duplicate keys wins; a value of another type counts as absent). Nesting is
 * walked with an explicit stack, so a deeply nested line cannot overflow the call stack.
 */

const QUOTE = 34;
const BACKSLASH = 92;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const COMMA = 44;
const COLON = 58;
const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const OBJ = 1;
const ARR = 2;

/** The index's fields of one rollout line (absent: the line does not have them, or not with that type). */
export interface RolloutFields {
  iteration: number | undefined;
  group: number | undefined;
  traj: number | undefined;
  reward: number | undefined;
  rolloutsTotal: number | undefined;
  tags: string[];
  truncation: string | undefined;
  steps: number;
  /** Some step's `logs` has `stop_reason: "length"` or `truncated` 1 / true. */
  stepTruncated: boolean;
}

const lit = (s: string) => Buffer.from(s, 'latin1');
const K_ITERATION = lit('iteration');
const K_GROUP = lit('group_idx');
const K_TRAJ = lit('traj_idx');
const K_REWARD = lit('total_reward');
const K_TOTAL = lit('rollouts_total');
const K_TAGS = lit('tags');
const K_TRUNCATION = lit('truncation');
const K_STEPS = lit('steps');
const K_LOGS = lit('logs');
const K_STOP = lit('stop_reason');
const K_TRUNCATED = lit('truncated');
const V_LENGTH = lit('length');
const V_TRUE = lit('true');
const V_FALSE = lit('false');
const V_NULL = lit('null');

/** Thrown inside the scanner on ill-formed input; never escapes {@link scanRolloutLine}. */
class Malformed {}
const EMPTY = Buffer.alloc(0);
const MALFORMED = new Malformed();

/** Strings longer than this are skipped with native searches. */
const SHORT = 24;

/** Whether `b[from, to)` holds a byte below 0x20 (JSON forbids them raw inside strings). */
function controlIn(b: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i]! < 32) return true;
  return false;
}

const isHex = (c: number | undefined) =>
  c !== undefined && ((c >= ZERO && c <= NINE) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102));

const isDigit = (c: number | undefined) => c !== undefined && c >= ZERO && c <= NINE;

/**
 * A cursor over one line. No closure is made per line or per value (the walk is written with methods and loops):
 * indexing calls it for every line of a run.
 */
class Scanner {
  p = 0;
  b: Buffer = EMPTY;
  private readonly stack: number[] = [];
  // The last key's range (between its quotes) and whether it had escapes.
  private ks = 0;
  private ke = 0;
  private kEscaped = false;

  /** Points the scanner at a new line. */
  reset(b: Buffer): void {
    this.b = b;
    this.p = 0;
    this.stack.length = 0;
    this.nextBackslash = -1;
  }

  ws(): void {
    const b = this.b;
    let p = this.p;
    for (;;) {
      const c = b[p];
      if (c === 32 || c === 10 || c === 13 || c === 9) p++;
      else break;
    }
    this.p = p;
  }

  /**
   * Skips a string at `p` (which must be a quote); returns whether it had escapes. Short strings are walked byte by
   * byte; past {@link SHORT} bytes the closing quote is found by `indexOf` (native), and a control character inside
   * a long string is found by {@link controlIn}'s native search as well.
   */
  skipString(): boolean {
    const b = this.b;
    const n = b.length;
    if (b[this.p] !== QUOTE) throw MALFORMED;
    const start = this.p + 1;
    let p = start;
    const short = Math.min(n, start + SHORT);
    for (;;) {
      if (p >= short) break;
      const c = b[p]!;
      if (c === QUOTE) {
        this.p = p + 1;
        return false;
      }
      if (c < 32) throw MALFORMED;
      if (c === BACKSLASH) return this.escapedRest(p);
      p++;
    }
    if (p >= n) throw MALFORMED;
    const q = b.indexOf(QUOTE, p);
    if (q < 0) throw MALFORMED;
    if (this.backslashAfter(p) < q) return this.escapedRest(p);
    if (controlIn(b, p, q)) throw MALFORMED;
    this.p = q + 1;
    return false;
  }

  /** The string's rest from `p` (inside it, at or before its first backslash), byte by byte: returns true. */
  private escapedRest(p: number): boolean {
    const b = this.b;
    const n = b.length;
    for (;;) {
      if (p >= n) throw MALFORMED;
      const c = b[p]!;
      if (c === QUOTE) break;
      if (c < 32) throw MALFORMED;
      if (c === BACKSLASH) p = this.escape(p + 1);
      else p++;
    }
    this.p = p + 1;
    return true;
  }

  /** Checks the escape whose letter is at `p` (`\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` `\uXXXX`); returns the position after it. */
  private escape(p: number): number {
    const c = this.b[p];
    if (c === 117) {
      for (let i = 1; i <= 4; i++) if (!isHex(this.b[p + i])) throw MALFORMED;
      return p + 5;
    }
    if (c === QUOTE || c === BACKSLASH || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116)
      return p + 1;
    throw MALFORMED;
  }

  // The first backslash at or after `nextBackslashFrom` (the line's length when none): found once, moved on rarely.
  private nextBackslash = -1;
  private backslashAfter(p: number): number {
    if (this.nextBackslash < p) {
      const i = this.b.indexOf(BACKSLASH, p);
      this.nextBackslash = i < 0 ? this.b.length : i;
    }
    return this.nextBackslash;
  }

  /** Reads a string at `p` as `JSON.parse` would. */
  readString(): string {
    const s = this.p;
    const escaped = this.skipString();
    if (!escaped) return this.b.toString('utf8', s + 1, this.p - 1);
    return decodeJsonString(this.b, s, this.p);
  }

  /** Reads an object key and its colon; the key's range is kept for {@link keyIs}. */
  key(): void {
    this.ws();
    const s = this.p;
    this.kEscaped = this.skipString();
    this.ks = s + 1;
    this.ke = this.p - 1;
    this.ws();
    if (this.b[this.p] !== COLON) throw MALFORMED;
    this.p++;
    this.ws();
  }

  keyIs(k: Buffer): boolean {
    if (this.kEscaped) return decodeJsonString(this.b, this.ks - 1, this.ke + 1) === k.toString('latin1');
    return this.ke - this.ks === k.length && this.at(k, this.ks);
  }

  /** Whether the bytes at `from` are `word`. */
  at(word: Buffer, from = this.p): boolean {
    const b = this.b;
    if (from + word.length > b.length) return false;
    for (let i = 0; i < word.length; i++) if (b[from + i] !== word[i]) return false;
    return true;
  }

  /** Skips a number at `p` (JSON's grammar); returns its value when `value`, else 0. */
  number(value: boolean): number {
    const b = this.b;
    const s = this.p;
    let p = s;
    if (b[p] === MINUS) p++;
    if (b[p] === ZERO) p++;
    else if (isDigit(b[p])) while (isDigit(b[p])) p++;
    else throw MALFORMED;
    if (b[p] === DOT) {
      p++;
      if (!isDigit(b[p])) throw MALFORMED;
      while (isDigit(b[p])) p++;
    }
    if (b[p] === 101 || b[p] === 69) {
      p++;
      if (b[p] === PLUS || b[p] === MINUS) p++;
      if (!isDigit(b[p])) throw MALFORMED;
      while (isDigit(b[p])) p++;
    }
    this.p = p;
    if (!value) return 0;
    // A short integer is summed here (exact below 2^53); anything else is read by Number, as JSON.parse reads it.
    if (p - s <= 15 && b[s] !== MINUS) {
      let v = 0;
      let i = s;
      for (; i < p; i++) {
        const c = b[i]!;
        if (c < ZERO || c > NINE) break;
        v = v * 10 + (c - ZERO);
      }
      if (i === p) return v;
    }
    return Number(b.toString('latin1', s, p));
  }

  isNumberStart(): boolean {
    const c = this.b[this.p];
    return c === MINUS || isDigit(c);
  }

  /** Skips a scalar (string, number, literal) at `p`. */
  scalar(): void {
    const c = this.b[this.p];
    if (c === QUOTE) this.skipString();
    else if (this.isNumberStart()) this.number(false);
    else if (c === 116 && this.at(V_TRUE)) this.p += 4;
    else if (c === 102 && this.at(V_FALSE)) this.p += 5;
    else if (c === 110 && this.at(V_NULL)) this.p += 4;
    else throw MALFORMED;
  }

  /** Skips any value at `p`, checking its grammar. */
  skipValue(): void {
    const b = this.b;
    const stack = this.stack;
    const base = stack.length;
    for (;;) {
      this.ws();
      const c = b[this.p];
      if (c === LBRACE) {
        this.p++;
        this.ws();
        if (b[this.p] === RBRACE) this.p++;
        else {
          this.key();
          stack.push(OBJ);
          continue;
        }
      } else if (c === LBRACKET) {
        this.p++;
        this.ws();
        if (b[this.p] === RBRACKET) this.p++;
        else {
          stack.push(ARR);
          continue;
        }
      } else this.scalar();
      // After a value: close what ends here, or go on to the next member.
      for (;;) {
        if (stack.length === base) return;
        this.ws();
        const d = b[this.p];
        const top = stack[stack.length - 1];
        if (d === COMMA) {
          this.p++;
          if (top === OBJ) this.key();
          break;
        }
        if ((top === OBJ && d === RBRACE) || (top === ARR && d === RBRACKET)) {
          this.p++;
          stack.pop();
          continue;
        }
        throw MALFORMED;
      }
    }
  }

  /** Opens a container at `p` (`open` must be there): whether a member follows (false: it was empty, consumed). */
  open(open: number, close: number): boolean {
    if (this.b[this.p] !== open) throw MALFORMED;
    this.p++;
    this.ws();
    if (this.b[this.p] === close) {
      this.p++;
      return false;
    }
    return true;
  }

  /** After a member: whether another follows (a comma, consumed) or the container ends (`close`, consumed). */
  more(close: number): boolean {
    this.ws();
    const c = this.b[this.p];
    this.p++;
    if (c === COMMA) {
      this.ws();
      return true;
    }
    if (c === close) return false;
    throw MALFORMED;
  }

  /** A number at `p` (consumed), or undefined after skipping a value of another type. */
  numberOrSkip(): number | undefined {
    if (this.isNumberStart()) {
      const v = this.number(true);
      return Number.isFinite(v) ? v : undefined;
    }
    this.skipValue();
    return undefined;
  }

  /** The top-level object, into `out`. */
  top(out: RolloutFields): void {
    const b = this.b;
    if (!this.open(LBRACE, RBRACE)) return;
    do {
      this.key();
      if (this.keyIs(K_ITERATION)) out.iteration = this.numberOrSkip();
      else if (this.keyIs(K_GROUP)) out.group = this.numberOrSkip();
      else if (this.keyIs(K_TRAJ)) out.traj = this.numberOrSkip();
      else if (this.keyIs(K_REWARD)) out.reward = this.numberOrSkip();
      else if (this.keyIs(K_TOTAL)) out.rolloutsTotal = this.numberOrSkip();
      else if (this.keyIs(K_TRUNCATION)) {
        if (b[this.p] === QUOTE) out.truncation = this.readString();
        else {
          out.truncation = undefined;
          this.skipValue();
        }
      } else if (this.keyIs(K_TAGS)) {
        out.tags = [];
        if (b[this.p] !== LBRACKET) this.skipValue();
        else if (this.open(LBRACKET, RBRACKET))
          do {
            if (b[this.p] === QUOTE) out.tags.push(this.readString());
            else this.skipValue();
          } while (this.more(RBRACKET));
      } else if (this.keyIs(K_STEPS)) {
        out.steps = 0;
        out.stepTruncated = false;
        if (b[this.p] !== LBRACKET) this.skipValue();
        else if (this.open(LBRACKET, RBRACKET))
          do {
            out.steps++;
            if (this.step()) out.stepTruncated = true;
          } while (this.more(RBRACKET));
      } else this.skipValue();
    } while (this.more(RBRACE));
  }

  /** One element of `steps` (consumed): whether its `logs` say the episode was cut (the last `logs` key counts). */
  step(): boolean {
    if (this.b[this.p] !== LBRACE) {
      this.skipValue();
      return false;
    }
    let cut = false;
    if (this.open(LBRACE, RBRACE))
      do {
        this.key();
        if (this.keyIs(K_LOGS)) cut = this.logsCut();
        else this.skipValue();
      } while (this.more(RBRACE));
    return cut;
  }

  /** A step's `logs` (consumed): `stop_reason` is "length", or `truncated` is 1 or true. */
  logsCut(): boolean {
    const b = this.b;
    if (b[this.p] !== LBRACE) {
      this.skipValue();
      return false;
    }
    let stop = false;
    let truncated = false;
    if (this.open(LBRACE, RBRACE))
      do {
        this.key();
        if (this.keyIs(K_STOP)) {
          if (b[this.p] === QUOTE) {
            const from = this.p;
            const escaped = this.skipString();
            stop = escaped
              ? decodeJsonString(b, from, this.p) === 'length'
              : this.p - from - 2 === V_LENGTH.length && this.at(V_LENGTH, from + 1);
          } else {
            stop = false;
            this.skipValue();
          }
        } else if (this.keyIs(K_TRUNCATED)) {
          if (b[this.p] === 116 && this.at(V_TRUE)) {
            this.p += 4;
            truncated = true;
          } else truncated = this.numberOrSkip() === 1;
        } else this.skipValue();
      } while (this.more(RBRACE));
    return stop || truncated;
  }
}

/** A JSON string with escapes (`from` at its opening quote, `to` after its closing one), as `JSON.parse` reads it. */
function decodeJsonString(b: Buffer, from: number, to: number): string {
  try {
    return JSON.parse(b.toString('utf8', from, to)) as string;
  } catch {
    throw MALFORMED;
  }
}

/** One scanner for every line (reset per line; scanning is synchronous, so calls never interleave). */
const SCANNER = new Scanner();

/**
 * The index fields of the JSON object in `line` (one line, no newline), or `undefined` when the line is not one
 * well-formed JSON object (as `JSON.parse` would refuse it, or a value that is not an object).
 */
export function scanRolloutLine(line: Buffer): RolloutFields | undefined {
  const s = SCANNER;
  s.reset(line);
  const out: RolloutFields = {
    iteration: undefined,
    group: undefined,
    traj: undefined,
    reward: undefined,
    rolloutsTotal: undefined,
    tags: [],
    truncation: undefined,
    steps: 0,
    stepTruncated: false,
  };
  try {
    s.ws();
    s.top(out);
    s.ws();
    return s.p === line.length ? out : undefined;
  } catch (e) {
    if (e === MALFORMED) return undefined;
    throw e;
  }
}
