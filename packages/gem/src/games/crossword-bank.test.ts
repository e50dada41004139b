import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Crosswords } from './crosswords.js';
import { downloadGemCrosswordBank, parseCrosswordBank } from './internal/crossword-bank.js';

// Made-up entries in GEM's words_clues.jsonl shape (the clue order is the file's: "2" before "1" here).
const BANK = [
  '{"word": "lamp", "hardcore": false, "clues": {"2": "Gives light on a desk", "1": "second clue"}}',
  '{"word": "kettle", "hardcore": false, "clues": {"1": "Boils water for tea"}}',
  '{"word": "oak", "hardcore": false, "clues": {"1": "A tree with acorns"}}',
  '{"word": "quixotic", "hardcore": true, "clues": {"1": "Idealistic to an impractical degree"}}',
].join('\n');

const dir = mkdtempSync(join(tmpdir(), 'gem-bank-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("GEM's crossword bank format", () => {
  it("takes the first clue in the file's order, as GEM's pandas read does", () => {
    const entries = parseCrosswordBank(BANK, 'bank.jsonl');
    expect(entries[0]).toEqual({ word: 'lamp', hardcore: false, clue: 'Gives light on a desk' });
    expect(entries.filter((e) => e.hardcore).map((e) => e.word)).toEqual(['quixotic']);
  });

  it('names the file, line and field of a bad entry', () => {
    expect(() =>
      parseCrosswordBank('{"word": "ok", "hardcore": false, "clues": {"1": "x"}}\n{"word": 3}', 'b.jsonl'),
    ).toThrow(/b\.jsonl:2, field "word"/);
    expect(() => parseCrosswordBank('{"word": "ok", "hardcore": "no", "clues": {}}', 'b.jsonl')).toThrow(
      /b\.jsonl:1, field "hardcore"/,
    );
    expect(() => parseCrosswordBank('not json', 'b.jsonl')).toThrow(/b\.jsonl:1: not JSON/);
  });

  it('Crosswords plays from a bank given by words_path', async () => {
    const path = join(dir, 'words_clues.jsonl');
    writeFileSync(path, BANK);
    const env = new Crosswords({ words_path: path, num_words: 3, hardcore: false });
    const { info } = await env.reset(1);
    expect(new Set(env.placedWords.keys())).toEqual(new Set(['lamp', 'kettle', 'oak']));
    expect(String(info.suffix)).toContain('Gives light on a desk');
    expect(() => new Crosswords({ words_path: join(dir, 'missing.jsonl') })).toThrow(/missing\.jsonl/);
  });

  it('downloads and checks the bank, and says so clearly when offline', async () => {
    const dest = join(dir, 'downloaded.jsonl');
    const ok = (async () => new Response(BANK)) as unknown as typeof fetch;
    await expect(downloadGemCrosswordBank(dest, { fetch: ok })).resolves.toBe(dest);
    expect(readFileSync(dest, 'utf8')).toBe(BANK);
    const offline = (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as typeof fetch;
    await expect(downloadGemCrosswordBank(join(dir, 'x.jsonl'), { fetch: offline })).rejects.toThrow(
      /needs the network.*words_path/s,
    );
  });
});
