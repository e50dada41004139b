/**
 * A generated world for multi-hop retrieval (the offline stand-in for upstream `search_tool`'s Wikipedia + NQ/HotpotQA
 * data): invented countries, cities, people, companies and products, one document per entity, and questions whose
 * answer needs two or three documents (the product's maker, then the maker's founder, …). Names are invented so no
 * model knows the answers without searching. Deterministic in the seed.
 */
import { ConfigError, Mulberry32Rng } from '@cookbook/core';
import type { SearchDocument } from '@cookbook/tools';

/** One question with its answer and the documents (ids) that lead to it, in order. */
export interface MultiHopQuestion {
  id: string;
  question: string;
  answer: string;
  /** The search queries an expert would issue, in order (used for demonstrations). */
  queries: string[];
  /** Ids of the documents on the path to the answer. */
  supportingDocs: string[];
}

/** The generated collection and its questions. */
export interface MultiHopWorld {
  documents: SearchDocument[];
  questions: MultiHopQuestion[];
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'sa',
  'tor',
  'vel',
  'zu',
  'an',
  'bel',
  'dor',
  'fi',
  'gra',
  'hal',
  'is',
  'jun',
  'ko',
  'lim',
  'mar',
  'nes',
  'or',
  'pel',
  'qua',
  'ris',
  'sel',
  'tan',
  'ul',
  'vin',
  'wen',
  'yor',
] as const;
const KINDS = ['lamp', 'kettle', 'engine', 'loom', 'compass', 'bicycle', 'camera', 'clock'] as const;
const SUFFIXES = ['Works', 'Foundry', 'Instruments', 'Company'] as const;
const TRADES = ['engineer', 'chemist', 'weaver', 'inventor', 'merchant', 'architect'] as const;

/** Sizes of a generated world. */
export interface MultiHopWorldOptions {
  countries?: number;
  cities?: number;
  people?: number;
  companies?: number;
  products?: number;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Generate the world of `seed`. */
export function generateMultiHopWorld(seed: number, options: MultiHopWorldOptions = {}): MultiHopWorld {
  const n = { countries: 5, cities: 15, people: 20, companies: 12, products: 30, ...options };
  for (const [k, v] of Object.entries(n)) {
    if (!Number.isInteger(v) || v < 1 || v > 500) throw new ConfigError(`world ${k} must be in [1, 500], got ${v}`);
  }
  const rng = new Mulberry32Rng(seed);
  const used = new Set<string>();
  const word = (syllables: number) => {
    for (let attempt = 0; attempt < 10_000; attempt++) {
      const w = cap(Array.from({ length: syllables }, () => rng.choice(SYLLABLES)).join(''));
      if (!used.has(w.toLowerCase())) {
        used.add(w.toLowerCase());
        return w;
      }
    }
    throw new ConfigError('world too large for its name space');
  };
  const countries = Array.from({ length: n.countries }, () => word(3));
  const cities = Array.from({ length: n.cities }, (_, i) => ({
    name: word(2),
    country: countries[i % countries.length]!,
    river: word(2),
  }));
  const people = Array.from({ length: n.people }, () => ({
    name: `${word(2)} ${word(2)}`,
    born: rng.choice(cities).name,
    trade: rng.choice(TRADES),
  }));
  const companies = Array.from({ length: n.companies }, () => ({
    name: `${word(2)} ${rng.choice(SUFFIXES)}`,
    founder: rng.choice(people).name,
    city: rng.choice(cities).name,
    year: rng.int(1850, 1990),
  }));
  const products = Array.from({ length: n.products }, () => {
    const kind = rng.choice(KINDS);
    return { name: `${word(2)} ${kind}`, kind, maker: rng.choice(companies).name, year: rng.int(1900, 2020) };
  });

  const id = (prefix: string, name: string) => `${prefix}:${name.toLowerCase().replace(/\s+/g, '-')}`;
  const documents: SearchDocument[] = [];
  for (const c of countries) {
    const own = cities.filter((x) => x.country === c).map((x) => x.name);
    documents.push({
      id: id('country', c),
      title: c,
      text: `${c} is a country. Its cities include ${own.join(', ')}. Its capital is ${own[0]}.`,
    });
  }
  for (const c of cities) {
    documents.push({
      id: id('city', c.name),
      title: c.name,
      text: `${c.name} is a city in ${c.country}, on the ${c.river} river.`,
    });
  }
  for (const p of people) {
    documents.push({
      id: id('person', p.name),
      title: p.name,
      text: `${p.name} was a ${p.trade} born in ${p.born}.`,
    });
  }
  for (const c of companies) {
    const made = products.filter((p) => p.maker === c.name).map((p) => p.kind);
    const line = made.length === 0 ? 'It sells parts.' : `It makes ${[...new Set(made)].join(', ')}s.`;
    documents.push({
      id: id('company', c.name),
      title: c.name,
      text: `${c.name} was founded in ${c.year} by ${c.founder}. It is based in ${c.city}. ${line}`,
    });
  }
  for (const p of products) {
    documents.push({
      id: id('product', p.name),
      title: `The ${p.name}`,
      text: `The ${p.name} is a ${p.kind} made by ${p.maker}, first sold in ${p.year}.`,
    });
  }

  const company = new Map(companies.map((c) => [c.name, c]));
  const person = new Map(people.map((p) => [p.name, p]));
  const city = new Map(cities.map((c) => [c.name, c]));
  const questions: MultiHopQuestion[] = [];
  products.forEach((p, i) => {
    const maker = company.get(p.maker)!;
    const form = i % 3;
    if (form === 0) {
      questions.push({
        id: `q${questions.length}`,
        question: `Who founded the company that makes the ${p.name}?`,
        answer: maker.founder,
        queries: [`${p.name}`, `${maker.name} founded`],
        supportingDocs: [id('product', p.name), id('company', maker.name)],
      });
    } else if (form === 1) {
      const founder = person.get(maker.founder)!;
      questions.push({
        id: `q${questions.length}`,
        question: `In which city was the founder of the maker of the ${p.name} born?`,
        answer: founder.born,
        queries: [`${p.name}`, `${maker.name} founded`, `${founder.name} born`],
        supportingDocs: [id('product', p.name), id('company', maker.name), id('person', founder.name)],
      });
    } else {
      const hq = city.get(maker.city)!;
      questions.push({
        id: `q${questions.length}`,
        question: `In which country is the company that makes the ${p.name} based?`,
        answer: hq.country,
        queries: [`${p.name}`, `${maker.name} based`, `${hq.name} city`],
        supportingDocs: [id('product', p.name), id('company', maker.name), id('city', hq.name)],
      });
    }
  });
  return { documents, questions };
}
