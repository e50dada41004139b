import { describe, expect, it } from 'vitest';
import { endsInsideThink, type TextPiece, ThinkSplitter } from './think-splitter.js';

function run(splitter: ThinkSplitter, pieces: string[]): TextPiece[] {
  const out = pieces.flatMap((p) => splitter.push(p));
  out.push(...splitter.flush());
  // Merge neighbours of one kind: how the pieces split is the caller's business, not the content.
  const merged: TextPiece[] = [];
  for (const p of out) {
    const last = merged.at(-1);
    if (last?.kind === p.kind) last.text += p.text;
    else merged.push({ ...p });
  }
  return merged;
}

describe('ThinkSplitter', () => {
  it('tells thinking from text with tags split across pieces, and hides the tags', () => {
    expect(run(new ThinkSplitter(), ['ab<th', 'ink>x', 'y</thi', 'nk>z'])).toEqual([
      { kind: 'text', text: 'ab' },
      { kind: 'thinking', text: 'xy' },
      { kind: 'text', text: 'z' },
    ]);
  });

  it('holds back a possible tag start only until it is decided', () => {
    const s = new ThinkSplitter();
    expect(s.push('a <')).toEqual([{ kind: 'text', text: 'a ' }]);
    expect(s.push('b')).toEqual([{ kind: 'text', text: '<b' }]);
  });

  it('starts inside thinking when the prompt opened the block', () => {
    expect(endsInsideThink('<|im_start|>assistant\n<think>\n')).toBe(true);
    expect(endsInsideThink('<think>\n\n</think>\n\n')).toBe(false);
    expect(run(new ThinkSplitter(true), ['hmm</think>ok'])).toEqual([
      { kind: 'thinking', text: 'hmm' },
      { kind: 'text', text: 'ok' },
    ]);
  });
});
