#!/usr/bin/env node
// Writes the small offline benchmark task files shipped with the CLI (`cookbook eval benchmarks=…`), next to this
// script. Original examples in the style of the shipped SFT conversations but with other numbers and pairings:
//   concise.jsonl    instruction following with programmatic checks (IFEval ids): short, one sentence, no comma,
//                    and at least 3 words of plain text (so an empty reply or bare markup fails)
//   arithmetic.jsonl math answered in \boxed{} (graded by value and symbolically)
//   capitals.jsonl   multiple choice (answer with a letter)
//   followups.jsonl  two-turn conversations, each turn graded (the answer must appear in the reply)
//   reply_format.jsonl  questions like the SFT conversations' (../example-conversations.jsonl) but held out from
//                    them, graded on the reply format those conversations teach: one plain line, one sentence,
//                    1 to 19 words, so the reply must end its turn (content is not graded; the tasks above grade it)
// Deterministic: run it again and the files are byte-for-byte the same. Usage: node apps/cli/data/eval/make-eval-tasks.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let state = 7_700_417;
const rand = () => {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return state / 2 ** 32;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const shuffle = (xs) => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};
const dir = dirname(fileURLToPath(import.meta.url));
const write = (name, rows) => {
  writeFileSync(join(dir, name), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  console.log(`wrote ${rows.length} examples to ${name}`);
};

const capitals = [
  ['France', 'Paris'],
  ['Italy', 'Rome'],
  ['Spain', 'Madrid'],
  ['Germany', 'Berlin'],
  ['Portugal', 'Lisbon'],
  ['Japan', 'Tokyo'],
  ['Canada', 'Ottawa'],
  ['Australia', 'Canberra'],
  ['Egypt', 'Cairo'],
  ['Kenya', 'Nairobi'],
  ['Peru', 'Lima'],
  ['Chile', 'Santiago'],
  ['Norway', 'Oslo'],
  ['Sweden', 'Stockholm'],
  ['Finland', 'Helsinki'],
  ['Poland', 'Warsaw'],
  ['Greece', 'Athens'],
  ['Ireland', 'Dublin'],
  ['Austria', 'Vienna'],
  ['Hungary', 'Budapest'],
  ['Mexico', 'Mexico City'],
  ['Argentina', 'Buenos Aires'],
  ['India', 'New Delhi'],
  ['Thailand', 'Bangkok'],
  ['Vietnam', 'Hanoi'],
  ['Morocco', 'Rabat'],
  ['Ghana', 'Accra'],
  ['Cuba', 'Havana'],
  ['Denmark', 'Copenhagen'],
  ['Belgium', 'Brussels'],
];

// concise: questions with instructions a concise one-sentence answer follows.
const questions = [
  () => {
    const a = int(11, 70);
    const b = int(3, 29);
    return `What is ${a} + ${b}?`;
  },
  () => {
    const a = int(11, 70);
    const b = int(3, 9);
    return `What is ${a} * ${b}?`;
  },
  () => `What is the capital of ${pick(capitals)[0]}?`,
  () => `How many minutes are in ${int(2, 11)} hours?`,
  () => `Convert ${int(2, 11)} kilometers to meters.`,
  () => {
    const a = int(10, 99);
    const b = int(10, 99);
    return `Which is larger, ${a} or ${b}?`;
  },
  () => `Define ${pick(['a river', 'a desert', 'a circle', 'an ocean', 'a glacier', 'a square'])}.`,
];
// Every set also asks for at least 3 words and plain text (no `<`, so no markup such as `</think>`): without these
// lower bounds, a reply with no words at all would follow every upper bound (IFEval's checks are mostly upper bounds).
const plain = [
  { id: 'length_constraints:number_words', kwargs: { relation: 'at least', num_words: 3 } },
  { id: 'keywords:letter_frequency', kwargs: { letter: '<', let_frequency: 1, let_relation: 'less than' } },
];
const instructionSets = [
  {
    text: 'Answer in one plain sentence of 3 to 15 words.',
    instructions: [
      { id: 'length_constraints:number_sentences', kwargs: { relation: 'less than', num_sentences: 2 } },
      { id: 'length_constraints:number_words', kwargs: { relation: 'less than', num_words: 16 } },
      ...plain,
    ],
  },
  {
    text: 'Keep it short and plain: at least 3 words, no commas, and end with a period.',
    instructions: [
      { id: 'punctuation:no_comma' },
      { id: 'startend:end_checker', kwargs: { end_phrase: '.' } },
      { id: 'length_constraints:number_words', kwargs: { relation: 'less than', num_words: 20 } },
      ...plain,
    ],
  },
  {
    text: 'Reply with a single short plain sentence of at least 3 words.',
    instructions: [
      { id: 'length_constraints:number_sentences', kwargs: { relation: 'less than', num_sentences: 2 } },
      { id: 'length_constraints:number_words', kwargs: { relation: 'less than', num_words: 12 } },
      { id: 'punctuation:no_comma' },
      ...plain,
    ],
  },
];
const concise = [];
for (let i = 0; i < 24; i++) {
  const set = instructionSets[i % instructionSets.length];
  concise.push({
    id: `c${String(i + 1).padStart(2, '0')}`,
    question: `${pick(questions)()} ${set.text}`,
    instructions: set.instructions,
  });
}
write('concise.jsonl', concise);

// arithmetic: \boxed answers, a few needing symbolic equivalence.
const boxed = ' Put the final answer in \\boxed{}.';
const arithmetic = [];
for (let i = 0; i < 16; i++) {
  const a = int(12, 89);
  const b = int(3, 48);
  const op = pick(['+', '-', '*']);
  const value = op === '+' ? a + b : op === '-' ? a - b : a * b;
  arithmetic.push({
    id: `a${String(i + 1).padStart(2, '0')}`,
    question: `What is ${a} ${op} ${b}?${boxed}`,
    answer: String(value),
  });
}
arithmetic.push(
  { id: 'a17', question: `Simplify \\sqrt{50}.${boxed}`, answer: '5\\sqrt{2}' },
  { id: 'a18', question: `Write 6/8 as a fraction in lowest terms.${boxed}`, answer: '\\frac{3}{4}' },
  { id: 'a19', question: `Expand (x+3)^2.${boxed}`, answer: 'x^2+6x+9' },
  { id: 'a20', question: `What is 0.2 as a fraction?${boxed}`, answer: '\\frac{1}{5}' },
);
write('arithmetic.jsonl', arithmetic);

// capitals: multiple choice.
const mc = [];
for (const [i, [country, city]] of shuffle(capitals).slice(0, 20).entries()) {
  const others = shuffle(capitals.filter(([c]) => c !== country))
    .slice(0, 3)
    .map(([, c]) => c);
  const choices = shuffle([city, ...others]);
  mc.push({
    id: `m${String(i + 1).padStart(2, '0')}`,
    question: `What is the capital of ${country}?`,
    choices,
    answer: 'ABCD'[choices.indexOf(city)],
  });
}
write('capitals.jsonl', mc);

// followups: two graded turns.
const followups = [];
for (let i = 0; i < 6; i++) {
  const a = int(2, 20);
  const b = int(2, 20);
  const c = int(2, 9);
  followups.push({
    id: `f${String(i + 1).padStart(2, '0')}`,
    question: `What is ${a} + ${b}?`,
    answer: String(a + b),
    turns: [{ content: `Now multiply that by ${c}.`, answer: String((a + b) * c) }],
    grader: 'contains',
  });
}
for (let i = 0; i < 4; i++) {
  const [c1, t1] = pick(capitals);
  const [c2, t2] = pick(capitals.filter(([c]) => c !== c1));
  followups.push({
    id: `f${String(i + 7).padStart(2, '0')}`,
    question: `What is the capital of ${c1}?`,
    answer: t1,
    turns: [{ content: `And the capital of ${c2}?`, answer: t2 }],
    grader: 'contains',
  });
}
write('followups.jsonl', followups);

// reply_format: the templates of make-example-conversations.mjs with other values (numbers above its ranges,
// countries and terms it does not use), so no question is one the SFT data trains on; checked below.
const trainedQuestions = new Set(
  readFileSync(join(dir, '..', 'example-conversations.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .flatMap((line) =>
      JSON.parse(line)
        .messages.filter((m) => m.role === 'user')
        .map((m) => m.content),
    ),
);
const replyFormat = [
  { id: 'length_constraints:number_words', kwargs: { relation: 'at least', num_words: 1 } },
  { id: 'length_constraints:number_words', kwargs: { relation: 'less than', num_words: 20 } },
  { id: 'length_constraints:number_sentences', kwargs: { relation: 'less than', num_sentences: 2 } },
  // No markup (`<think>`, `</think>`) and no line breaks: the SFT replies are one plain line.
  { id: 'keywords:letter_frequency', kwargs: { letter: '<', let_frequency: 1, let_relation: 'less than' } },
  { id: 'keywords:letter_frequency', kwargs: { letter: '\n', let_frequency: 1, let_relation: 'less than' } },
];
const newCountries = ['Brazil', 'Nigeria', 'Turkey', 'Nepal', 'Colombia', 'Senegal', 'Romania', 'Iceland'];
const newTerms = ['a rectangle', 'a river', 'an ocean', 'a glacier', 'an adjective', 'erosion'];
const units = [
  (n) => `How many centimeters are in ${n} meters?`,
  (n) => `Convert ${n} kilometers to meters.`,
  (n) => `How many minutes are in ${n} hours?`,
  (n) => `How many seconds are in ${n} minutes?`,
  (n) => `Convert ${n} kilograms to grams.`,
  (n) => `How many days are in ${n} weeks?`,
];
const formatQuestions = [];
for (let i = 0; i < 6; i++) {
  const a = int(61, 99);
  const b = int(2, 40);
  const op = pick(['+', '-', '*']);
  const word = op === '+' ? 'plus' : op === '-' ? 'minus' : 'times';
  formatQuestions.push([pick([`What is ${a} ${op} ${b}?`, `Compute ${a} ${word} ${b}.`, `${a} ${op} ${b} = ?`])]);
}
for (const country of shuffle(newCountries).slice(0, 6)) {
  formatQuestions.push([
    pick([`What is the capital of ${country}?`, `Name the capital city of ${country}.`, `Capital of ${country}?`]),
  ]);
}
for (let i = 0; i < 6; i++) formatQuestions.push([pick(units)(int(13, 20))]);
for (const term of shuffle(newTerms).slice(0, 3)) {
  formatQuestions.push([pick([`What is ${term}?`, `Define ${term}.`, `Explain ${term} in one sentence.`])]);
}
for (let i = 0; i < 3; i++) {
  formatQuestions.push([
    `Which is larger, ${int(100, 999)} or ${int(100, 999)}?`,
    'You are a concise assistant. Answer in one sentence.',
  ]);
}
const replyFormatTask = formatQuestions.map(([question, system], i) => {
  if (trainedQuestions.has(question)) throw new Error(`reply_format: "${question}" is in the SFT data`);
  return {
    id: `r${String(i + 1).padStart(2, '0')}`,
    ...(system === undefined ? {} : { system }),
    question,
    instructions: replyFormat,
    // All or nothing: the checks describe one format together (an empty reply follows most of them).
    grader: 'instructions_all',
  };
});
write('reply_format.jsonl', replyFormatTask);
