#!/usr/bin/env node
// Writes format-comparisons-{train,test}.jsonl next to this script: labeled comparisons where the preferred reply
// follows the format the prompt asks for ("Answer: <value>. Done.") and the other gives the same value in a format
// that breaks it (neither the prefix nor the closing "Done."). The rule is learnable by a tiny model and the held-out file uses questions the training file does not.
// Deterministic: run it again and the files are byte-for-byte the same. Usage: node make-comparisons.mjs
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let state = 20261125;
const rand = () => {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return state / 2 ** 32;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const CAPITALS = [
  ['France', 'Paris'],
  ['Peru', 'Lima'],
  ['Japan', 'Tokyo'],
  ['Kenya', 'Nairobi'],
  ['Canada', 'Ottawa'],
  ['Egypt', 'Cairo'],
  ['Chile', 'Santiago'],
  ['Norway', 'Oslo'],
  ['Spain', 'Madrid'],
  ['Italy', 'Rome'],
  ['Greece', 'Athens'],
  ['Poland', 'Warsaw'],
  ['Cuba', 'Havana'],
  ['Ireland', 'Dublin'],
  ['Portugal', 'Lisbon'],
  ['Austria', 'Vienna'],
  ['Hungary', 'Budapest'],
  ['Sweden', 'Stockholm'],
  ['Finland', 'Helsinki'],
  ['Ghana', 'Accra'],
];

function question() {
  const kind = pick(['add', 'sub', 'mul', 'capital', 'minutes', 'double']);
  if (kind === 'capital') {
    const [country, city] = pick(CAPITALS);
    return [pick([`What is the capital of ${country}?`, `Name the capital city of ${country}.`]), city];
  }
  if (kind === 'minutes') {
    const h = int(2, 12);
    return [`How many minutes are in ${h} hours?`, String(h * 60)];
  }
  if (kind === 'double') {
    const a = int(3, 99);
    return [`What is twice ${a}?`, String(2 * a)];
  }
  const a = int(2, 60);
  const b = int(2, 40);
  const op = kind === 'add' ? '+' : kind === 'sub' ? '-' : '*';
  const value = kind === 'add' ? a + b : kind === 'sub' ? a - b : a * b;
  return [pick([`What is ${a} ${op} ${b}?`, `Compute ${a} ${op} ${b}.`]), String(value)];
}

const BROKEN = [
  (v) => v,
  (v) => `The answer is ${v}.`,
  (v) => `I think it is ${v}`,
  (v) => `answer ${v}`,
  (v) => `${v}, of course!`,
  (v) => `Sure! ${v}`,
];

function comparison(seen) {
  for (;;) {
    const [q, value] = question();
    if (seen.has(q)) continue;
    seen.add(q);
    const prompt = [{ role: 'user', content: `${q} Reply in the form "Answer: <value>. Done."` }];
    const good = [{ role: 'assistant', content: `Answer: ${value}. Done.` }];
    const bad = [{ role: 'assistant', content: pick(BROKEN)(value) }];
    const goodFirst = rand() < 0.5;
    return {
      comparison: {
        prompt_conversation: prompt,
        completion_A: goodFirst ? good : bad,
        completion_B: goodFirst ? bad : good,
      },
      label: goodFirst ? 'A' : 'B',
    };
  }
}

const seen = new Set();
const test = Array.from({ length: 100 }, () => comparison(seen));
const train = Array.from({ length: 400 }, () => comparison(seen));
const here = dirname(fileURLToPath(import.meta.url));
const write = (name, rows) => writeFileSync(join(here, name), `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
write('format-comparisons-train.jsonl', train);
write('format-comparisons-test.jsonl', test);
console.log(`wrote ${train.length} train and ${test.length} test comparisons`);
