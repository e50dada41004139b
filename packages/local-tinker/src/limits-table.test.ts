import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LIMIT_KEYS } from './limits.js';

describe("the README's limits table", () => {
  it('has one row per limit, by its cookbook serve key (the table in code is the one every check reads)', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const rows = [...readme.matchAll(/^\| `([a-z_]+)`\s+\|/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(Object.values(LIMIT_KEYS).sort());
  });
});
