/**
 * A streamed reply's text as its tokens arrive (`stream: true`): what part of the text of the tokens so far is
 * already final and may be sent. Invariants: the text sent is always a prefix of the text the whole reply shows
 * (the rest is sent at the end); a text that might still become a stop string (its last `holdBack` characters) or
 * an incomplete UTF-8 character is held; once the tokens so far do not read as plain text (`visible` answers
 * undefined: thinking, a tool call), nothing more is sent live and the rest comes with the result.
 */

export class LiveText {
  private tokens: number[] = [];
  /** The text sent so far. */
  sent = '';
  private live = true;

  /**
   * @param visible the reply's text for the tokens so far, cut at the first stop string found; undefined when the
   *   tokens do not read as plain text
   * @param holdBack characters held at the end (the longest stop string's length minus one)
   */
  constructor(
    private readonly visible: (tokens: readonly number[]) => string | undefined,
    private readonly holdBack: number,
  ) {}

  /** Adds tokens; returns the text that became final (empty: none). */
  push(tokens: readonly number[]): string {
    if (!this.live || tokens.length === 0) return '';
    this.tokens.push(...tokens);
    const text = this.visible(this.tokens);
    if (text === undefined || !text.startsWith(this.sent)) {
      this.live = false;
      return '';
    }
    let end = Math.max(this.sent.length, text.length - this.holdBack);
    while (end > this.sent.length && text.charCodeAt(end - 1) === 0xfffd) end--;
    // Never split a surrogate pair.
    const last = text.charCodeAt(end - 1);
    if (end > this.sent.length && last >= 0xd800 && last <= 0xdbff) end--;
    const delta = text.slice(this.sent.length, end);
    this.sent += delta;
    return delta;
  }

  /**
   * What is left to send of `final` (the whole reply's text) once the result is in; undefined when `final` does not
   * continue what was sent (cannot happen for plain text; the caller reports it).
   */
  rest(final: string): string | undefined {
    return final.startsWith(this.sent) ? final.slice(this.sent.length) : undefined;
  }
}

/** The longest of `stops` minus one, at least 0: how many trailing characters could still begin one of them. */
export function holdBackFor(stops: readonly string[]): number {
  return Math.max(0, ...stops.map((s) => s.length - 1));
}
