/**
 * Parity with upstream's renderers where no model template can be obtained, and for the weights of the names held
 * to a template (see `__fixtures__/upstream-parity.ts`):
 * for every row, each seeded conversation renders — generation prompt, supervised tokens and weights — to the digest
 * upstream's renderer of the same name gave on the same tokenizer, or shows one of the row's documented differences
 * (tokens and weights, or the weights alone where the difference is about weights); a conversation upstream refuses is
 * refused here too. The fixture is written by `scripts/upstream-renderer-parity.py` from a tinker-cookbook checkout.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  PARITY_ROWS,
  parityConversations,
  parityDigests,
  parityRenderer,
  parityTokenizer,
  parityTrainOnWhat,
  renderOurs,
} from './__fixtures__/upstream-parity.js';

interface Fixture {
  upstream_commit: string;
  rows: { name: string; conversations: number; digests: string[] }[];
}
const fixture = JSON.parse(
  readFileSync(new URL('./__fixtures__/upstream-parity.json', import.meta.url), 'utf8'),
) as Fixture;

describe("upstream's renderers, for the names no obtainable template covers, and the weights of the others", () => {
  it('the fixture has one row per parity row, with every conversation', () => {
    expect(fixture.rows.map((r) => [r.name, r.conversations])).toEqual(PARITY_ROWS.map((r) => [r.name, r.count]));
  });

  for (const row of PARITY_ROWS) {
    it(`${row.name}: ${row.count} conversations render as upstream's renderer does, but for documented differences`, () => {
      const expected = fixture.rows.find((r) => r.name === row.name)!.digests;
      const tok = parityTokenizer(row);
      const renderer = parityRenderer(row, tok);
      const tally: Record<string, number> = {};
      const count = (k: string) => {
        tally[k] = (tally[k] ?? 0) + 1;
      };
      for (const [i, c] of parityConversations(row).entries()) {
        const want = expected[i]!;
        let ours: ReturnType<typeof renderOurs>;
        try {
          ours = renderOurs(renderer, c, i);
        } catch (e) {
          expect(want, `${row.name} conversation ${i}: ours refuses it (${(e as Error).message})`).toMatch(/^error/);
          count('refused by both');
          continue;
        }
        expect(want, `${row.name} conversation ${i}: upstream refuses it, ours renders it`).not.toMatch(/^error/);
        const [wantTokens, wantAll] = want.split('/');
        const { tokens, all } = parityDigests(ours);
        if (tokens === wantTokens && all === wantAll) {
          count('identical');
          continue;
        }
        if (row.compare === 'weights' && tokens !== wantTokens) {
          count('tokens held to the template');
          continue;
        }
        const why = (row.differences ?? []).find(
          (d) => d.applies(c, parityTrainOnWhat(i)) && (d.weightsOnly !== true || tokens === wantTokens),
        );
        expect(
          why,
          `${row.name} conversation ${i} differs from upstream's rendering (${tokens === wantTokens ? 'weights' : 'tokens'}), ` +
            `and none of the documented differences applies (run scripts/upstream-renderer-parity.py to see upstream's): ` +
            `${JSON.stringify(c).slice(0, 800)}`,
        ).toBeDefined();
        count(why!.reason);
      }
      // The generated conversations reach the plain case: a good share of them are identical to upstream's.
      expect(tally.identical ?? 0, JSON.stringify(tally)).toBeGreaterThan(row.count / 5);
    });
  }
});
