#!/usr/bin/env node
// Writes example-conversations.jsonl next to this script: short, original chat conversations for the SFT recipes
// (arithmetic, capitals, unit conversions, definitions, a few two-turn chats). Deterministic: run it again and the
// file is byte-for-byte the same. Usage: node apps/cli/data/make-example-conversations.mjs
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let state = 20240601;
const rand = () => {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return state / 2 ** 32;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const conversations = [];
const chat = (...turns) =>
  conversations.push({
    messages: turns.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content })),
  });

// Arithmetic.
for (let i = 0; i < 40; i++) {
  const a = int(2, 60);
  const b = int(2, 40);
  const op = pick(['+', '-', '*']);
  const value = op === '+' ? a + b : op === '-' ? a - b : a * b;
  const word = op === '+' ? 'plus' : op === '-' ? 'minus' : 'times';
  const q = pick([`What is ${a} ${op} ${b}?`, `Compute ${a} ${word} ${b}.`, `${a} ${op} ${b} = ?`]);
  chat(q, `${a} ${op} ${b} = ${value}.`);
}

// Capitals.
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
for (const [country, city] of capitals) {
  const q = pick([
    `What is the capital of ${country}?`,
    `Name the capital city of ${country}.`,
    `Capital of ${country}?`,
  ]);
  chat(q, `The capital of ${country} is ${city}.`);
}

// Unit conversions.
const conversions = [
  (n) => [`How many centimeters are in ${n} meters?`, `${n} meters is ${n * 100} centimeters.`],
  (n) => [`Convert ${n} kilometers to meters.`, `${n} kilometers is ${n * 1000} meters.`],
  (n) => [`How many minutes are in ${n} hours?`, `${n} hours is ${n * 60} minutes.`],
  (n) => [`How many seconds are in ${n} minutes?`, `${n} minutes is ${n * 60} seconds.`],
  (n) => [`Convert ${n} kilograms to grams.`, `${n} kilograms is ${n * 1000} grams.`],
  (n) => [`How many days are in ${n} weeks?`, `${n} weeks is ${n * 7} days.`],
  (n) => [`How many millimeters are in ${n} centimeters?`, `${n} centimeters is ${n * 10} millimeters.`],
];
for (let i = 0; i < 35; i++) {
  const [q, a] = pick(conversions)(int(2, 12));
  chat(q, a);
}

// Short definitions.
const definitions = [
  ['a prime number', 'A prime number is a whole number greater than 1 whose only divisors are 1 and itself.'],
  ['photosynthesis', 'Photosynthesis is how plants turn light, water and carbon dioxide into sugar and oxygen.'],
  ['an atom', 'An atom is the smallest unit of a chemical element.'],
  ['gravity', 'Gravity is the force that pulls masses toward each other.'],
  ['a verb', 'A verb is a word that names an action or a state.'],
  ['a noun', 'A noun is a word that names a person, place, thing or idea.'],
  ['an island', 'An island is a piece of land surrounded by water.'],
  ['a triangle', 'A triangle is a shape with three sides and three angles.'],
  ['evaporation', 'Evaporation is when a liquid turns into a gas.'],
  ['a mammal', 'A mammal is a warm-blooded animal that feeds its young with milk.'],
  ['an algorithm', 'An algorithm is a precise list of steps that solves a problem.'],
  ['a fraction', 'A fraction is a number that names part of a whole, like 1/2.'],
  ['a volcano', 'A volcano is an opening in the ground where molten rock comes out.'],
  ['democracy', 'Democracy is a system of government in which citizens choose their leaders by voting.'],
  ['an even number', 'An even number is a whole number that can be divided by 2 with no remainder.'],
  ['a synonym', 'A synonym is a word that means the same as another word.'],
  ['an antonym', 'An antonym is a word that means the opposite of another word.'],
  ['a planet', 'A planet is a large body that orbits a star.'],
  ['friction', 'Friction is the force that resists things sliding against each other.'],
  ['a habitat', 'A habitat is the natural home of an animal or plant.'],
];
for (const [term, def] of definitions) {
  chat(pick([`What is ${term}?`, `Define ${term}.`, `Explain ${term} in one sentence.`]), def);
}

// Two-turn chats.
for (let i = 0; i < 15; i++) {
  const [country, city] = pick(capitals);
  const [country2, city2] = pick(capitals);
  chat(
    `What is the capital of ${country}?`,
    `The capital of ${country} is ${city}.`,
    `And the capital of ${country2}?`,
    `The capital of ${country2} is ${city2}.`,
  );
}
for (let i = 0; i < 10; i++) {
  const a = int(2, 20);
  const b = int(2, 20);
  const c = int(2, 9);
  chat(
    `What is ${a} + ${b}?`,
    `${a} + ${b} = ${a + b}.`,
    `Now multiply that by ${c}.`,
    `${a + b} * ${c} = ${(a + b) * c}.`,
  );
}

// A few with a system message.
for (let i = 0; i < 10; i++) {
  const a = int(10, 99);
  const b = int(10, 99);
  conversations.push({
    messages: [
      { role: 'system', content: 'You are a concise assistant. Answer in one sentence.' },
      { role: 'user', content: `Which is larger, ${a} or ${b}?` },
      {
        role: 'assistant',
        content: a === b ? `They are equal: both are ${a}.` : `${Math.max(a, b)} is larger than ${Math.min(a, b)}.`,
      },
    ],
  });
}

const out = join(dirname(fileURLToPath(import.meta.url)), 'example-conversations.jsonl');
writeFileSync(out, conversations.map((c) => JSON.stringify(c)).join('\n') + '\n');
console.log(`wrote ${conversations.length} conversations to ${out}`);
