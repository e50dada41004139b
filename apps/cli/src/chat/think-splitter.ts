/**
 * Splits streamed model text into thinking and answer text as it arrives, for display: text inside
 * `<think>`…`</think>` (the tags of Qwen3, DeepSeek, Kimi and Nemotron) is thinking. A tail that may be the start
 * of a tag is held back until the next piece decides it. The stored reply is parsed by the renderer, not by this.
 */

const OPEN = '<think>';
const CLOSE = '</think>';

/** A piece of streamed text. */
export interface TextPiece {
  kind: 'thinking' | 'text';
  text: string;
}

/** Feeds text, returns the pieces that are certain; {@link flush} returns the rest at the end. */
export class ThinkSplitter {
  private thinking: boolean;
  private held = '';

  /** `startInThinking`: the prompt already opened a `<think>` block the reply continues. */
  constructor(startInThinking = false) {
    this.thinking = startInThinking;
  }

  push(text: string): TextPiece[] {
    let s = this.held + text;
    this.held = '';
    const out: TextPiece[] = [];
    for (;;) {
      const tag = this.thinking ? CLOSE : OPEN;
      const i = s.indexOf(tag);
      if (i >= 0) {
        if (i > 0) out.push({ kind: this.thinking ? 'thinking' : 'text', text: s.slice(0, i) });
        s = s.slice(i + tag.length);
        this.thinking = !this.thinking;
        continue;
      }
      // Hold a tail that is a prefix of the tag.
      let keep = 0;
      for (let k = Math.min(tag.length - 1, s.length); k > 0; k--) {
        if (tag.startsWith(s.slice(s.length - k))) {
          keep = k;
          break;
        }
      }
      const emit = s.slice(0, s.length - keep);
      this.held = s.slice(s.length - keep);
      if (emit !== '') out.push({ kind: this.thinking ? 'thinking' : 'text', text: emit });
      return out;
    }
  }

  flush(): TextPiece[] {
    const rest = this.held;
    this.held = '';
    return rest === '' ? [] : [{ kind: this.thinking ? 'thinking' : 'text', text: rest }];
  }
}

/** Whether `promptText` ends inside an open `<think>` block (a renderer that prefills the opening tag). */
export function endsInsideThink(promptText: string): boolean {
  return promptText.lastIndexOf(OPEN) > promptText.lastIndexOf(CLOSE);
}
