import { type Datum, tensorToNumbers } from '@cookbook/core';
import type { HtmlFormatter } from '@cookbook/logging';
import type { Tokenizer } from '@cookbook/tokenizers';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A datum as HTML: its tokens decoded run by run, trained tokens (weight > 0) highlighted (the HTML twin of
 * `colorizeExample`).
 */
export class DatumFormatter implements HtmlFormatter {
  readonly cssKey = 'sft-datum';
  readonly css = `
.sft-datum { white-space: pre-wrap; word-wrap: break-word; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85em; border: 1px solid #d0d7de; border-radius: 6px; padding: 0.5em; }
.sft-w0 { color: #6e7781; }
.sft-wpos { background: #dafbe1; color: #116329; }
.sft-wneg { background: #ffebe9; color: #a40e26; }
`;
  readonly #datum: Datum;
  readonly #tokenizer: Tokenizer;

  constructor(datum: Datum, tokenizer: Tokenizer) {
    this.#datum = datum;
    this.#tokenizer = tokenizer;
  }

  toHtml(): string {
    const tokens: number[] = [];
    for (const c of this.#datum.modelInput.chunks) if (c.type === 'encoded_text') tokens.push(...c.tokens);
    const targets = this.#datum.lossFnInputs.target_tokens;
    const last = targets === undefined ? undefined : tensorToNumbers(targets).at(-1);
    if (last !== undefined) tokens.push(last);
    const wT = this.#datum.lossFnInputs.weights;
    const weights = [0, ...(wT === undefined ? [] : tensorToNumbers(wT))];
    const cls = (w: number) => (w > 0 ? 'sft-wpos' : w < 0 ? 'sft-wneg' : 'sft-w0');
    let html = '';
    let start = 0;
    for (let i = 1; i <= tokens.length; i++) {
      if (i < tokens.length && cls(weights[i] ?? 0) === cls(weights[start] ?? 0)) continue;
      html += `<span class="${cls(weights[start] ?? 0)}">${escapeHtml(this.#tokenizer.decode(tokens.slice(start, i)))}</span>`;
      start = i;
    }
    return `<div class="sft-datum">${html}</div>`;
  }
}
