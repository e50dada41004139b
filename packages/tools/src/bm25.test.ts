import { describe, expect, it } from 'vitest';
import { Bm25Index, bm25Tokenize } from './bm25.js';

// N = 3 documents of lengths 2, 3, 2 (avgdl 7/3); k1 = 1.2, b = 0.75.
// idf(cat) = idf(dog) = ln(1 + 1.5/2.5) = ln 1.6; idf(bird) = ln(1 + 2.5/1.5).
// "cat" in d0 (tf 1, |d| 2): ln1.6·2.2 / (1 + 1.2·(0.25 + 0.75·2/(7/3))) = 0.499176
// "cat" in d1 (tf 2, |d| 3): ln1.6·4.4 / (2 + 1.2·(0.25 + 0.75·3/(7/3))) = 0.598186
const docs = [
  { id: 'd0', text: 'Cat sat.' },
  { id: 'd1', text: 'cat, cat; DOG' },
  { id: 'd2', text: 'dog bird' },
];

describe('Bm25Index', () => {
  it('tokenizes into lower-cased letter and digit runs', () => {
    expect(bm25Tokenize('Hello, World-42 café!')).toEqual(['hello', 'world', '42', 'café']);
  });

  it('scores documents as computed by hand', () => {
    const index = new Bm25Index(docs);
    const s = index.scores('cat');
    expect(s[0]).toBeCloseTo(0.499176, 5);
    expect(s[1]).toBeCloseTo(0.598186, 5);
    expect(s[2]).toBe(0);
    const t = index.scores('bird dog');
    expect(t[2]).toBeCloseTo(1.540885, 5);
    expect(t[1]).toBeCloseTo(0.420817, 5);
    expect(t[0]).toBe(0);
  });

  it('ranks best first, leaves out documents without a query term and honours k', () => {
    const index = new Bm25Index(docs);
    expect(index.search('cat', 5).map((h) => h.document.id)).toEqual(['d1', 'd0']);
    expect(index.search('bird dog', 5).map((h) => h.document.id)).toEqual(['d2', 'd1']);
    expect(index.search('bird dog', 1).map((h) => h.document.id)).toEqual(['d2']);
    expect(index.search('unicorn', 3)).toEqual([]);
  });

  it('indexes titles with the text and breaks ties by collection order', () => {
    const index = new Bm25Index([
      { id: 'a', title: 'Zebra', text: 'x' },
      { id: 'b', title: 'Zebra', text: 'x' },
      { id: 'c', text: 'y z' },
    ]);
    expect(index.search('zebra', 3).map((h) => h.document.id)).toEqual(['a', 'b']);
  });

  it('refuses a bad k, bad parameters and duplicate ids', () => {
    const index = new Bm25Index(docs);
    expect(() => index.search('cat', 0)).toThrow(/k must be an integer/);
    expect(() => new Bm25Index(docs, { b: 2 })).toThrow(/b must be in \[0, 1\]/);
    expect(() => new Bm25Index([...docs, { id: 'd0', text: 'again' }])).toThrow(/two documents have the id "d0"/);
  });
});
