/**
 * A small, exact BM25 index (Okapi BM25 with Lucene's non-negative idf) over an in-memory document collection. It is
 * a cookbook implementation rather than an npm package: the ranking is a dozen lines, the packages that offer it
 * bundle tokenizers, stemmers and persistence we do not need, and the tests below pin its scores to hand-computed
 * values.
 *
 *   score(q, d) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
 *   idf(t)      = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
 *
 * Tokens are the lower-cased runs of letters and digits (Unicode aware); no stemming, no stop words. A query term
 * repeated in the query counts once per occurrence (as in Lucene's and rank_bm25's summation).
 */
import { ConfigError } from '@cookbook/core';

/** One document of a collection. */
export interface SearchDocument {
  id: string;
  /** Shown above the text in search results; indexed with the text. */
  title?: string;
  text: string;
}

/** One search hit. */
export interface SearchHit {
  document: SearchDocument;
  score: number;
}

/** BM25 parameters. */
export interface Bm25Options {
  /** Term-frequency saturation. Default 1.2 (Lucene's). */
  k1?: number;
  /** Length normalisation, 0 (none) to 1 (full). Default 0.75. */
  b?: number;
}

/** The tokens BM25 indexes and queries with. */
export function bm25Tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Most results one query may ask for. */
export const MAX_SEARCH_K = 1000;

/** An immutable BM25 index. */
export class Bm25Index {
  readonly documents: readonly SearchDocument[];
  readonly k1: number;
  readonly b: number;
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private readonly lengths: number[];
  private readonly avgLength: number;

  constructor(documents: readonly SearchDocument[], options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
    if (!(this.k1 >= 0 && Number.isFinite(this.k1))) throw new ConfigError(`bm25 k1 must be ≥ 0, got ${this.k1}`);
    if (!(this.b >= 0 && this.b <= 1)) throw new ConfigError(`bm25 b must be in [0, 1], got ${this.b}`);
    const ids = new Set<string>();
    for (const d of documents) {
      if (ids.has(d.id)) throw new ConfigError(`two documents have the id "${d.id}"`, { key: 'id' });
      ids.add(d.id);
    }
    this.documents = documents;
    this.lengths = documents.map((d, i) => {
      const tokens = bm25Tokenize(d.title === undefined ? d.text : `${d.title} ${d.text}`);
      const counts = new Map<string, number>();
      for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [t, tf] of counts) {
        let list = this.postings.get(t);
        if (list === undefined) {
          list = [];
          this.postings.set(t, list);
        }
        list.push({ doc: i, tf });
      }
      return tokens.length;
    });
    const total = this.lengths.reduce((a, n) => a + n, 0);
    this.avgLength = documents.length === 0 ? 0 : total / documents.length;
  }

  /** Number of documents. */
  get size(): number {
    return this.documents.length;
  }

  /** The idf of a (lower-cased) term. */
  idf(term: string): number {
    const n = this.postings.get(term)?.length ?? 0;
    const N = this.documents.length;
    return Math.log(1 + (N - n + 0.5) / (n + 0.5));
  }

  /** The BM25 score of every document for `query` (0 for documents sharing no term with it). */
  scores(query: string): number[] {
    const out = new Array<number>(this.documents.length).fill(0);
    for (const term of bm25Tokenize(query)) {
      const list = this.postings.get(term);
      if (list === undefined) continue;
      const idf = this.idf(term);
      for (const { doc, tf } of list) {
        const norm = this.avgLength === 0 ? 1 : 1 - this.b + (this.b * this.lengths[doc]!) / this.avgLength;
        out[doc]! += (idf * tf * (this.k1 + 1)) / (tf + this.k1 * norm);
      }
    }
    return out;
  }

  /**
   * The `k` best documents for `query`, best first; ties keep collection order. Documents that share no term with
   * the query are never returned (so fewer than `k` hits may come back).
   */
  search(query: string, k: number): SearchHit[] {
    if (!Number.isInteger(k) || k < 1 || k > MAX_SEARCH_K) {
      throw new ConfigError(`search k must be an integer in [1, ${MAX_SEARCH_K}], got ${k}`, { key: 'k' });
    }
    const scores = this.scores(query);
    const order = scores
      .map((score, i) => ({ score, i }))
      .filter((s) => s.score > 0)
      .sort((a, c) => c.score - a.score || a.i - c.i);
    return order.slice(0, k).map(({ score, i }) => ({ document: this.documents[i]!, score }));
  }
}
