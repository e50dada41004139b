/**
 * Side-by-side comparison of two evaluation folders: per-benchmark deltas of every summary field, and the examples
 * that flipped — solved in one run and not in the other (an example counts as solved when more than half of its
 * samples are correct; with one sample, when that sample is). Writes `compare.html` and `compare.json`.
 */
import { join } from 'node:path';
import { DataError } from '@cookbook/core';
import { writeFileAtomicSync } from '@cookbook/logging';
import { type BenchmarkSummary, type SampleRecord, splitResultId } from '../runner/results.js';
import { readEvalFolder } from './eval-folder.js';
import { esc, fmt, page } from './html.js';
import { sampleHtml } from './results-html.js';

/** One benchmark in both runs. */
export interface BenchmarkDelta {
  benchmark: string;
  a: BenchmarkSummary | undefined;
  b: BenchmarkSummary | undefined;
  /** b − a per numeric field present in both. */
  delta: Record<string, number>;
}

/** An example whose verdict differs between the runs. */
export interface FlippedExample {
  id: string;
  benchmark: string;
  /** Fraction of its samples that were correct. */
  a: number;
  b: number;
  /** `gained` = solved only in b; `lost` = solved only in a. */
  direction: 'gained' | 'lost';
}

/** The comparison. */
export interface Comparison {
  a: string;
  b: string;
  benchmarks: BenchmarkDelta[];
  flipped: FlippedExample[];
}

function accuracy(records: readonly SampleRecord[]): Map<string, number> {
  const counts = new Map<string, { n: number; c: number }>();
  for (const r of records) {
    const e = counts.get(r.id) ?? { n: 0, c: 0 };
    e.n++;
    if (r.correct) e.c++;
    counts.set(r.id, e);
  }
  return new Map([...counts].map(([id, e]) => [id, e.c / e.n]));
}

/** Compares the results in folders `a` and `b`, each in this package's layout or upstream's. */
export function compareResults(a: string, b: string): Comparison {
  const fa = readEvalFolder(a);
  const fb = readEvalFolder(b);
  const sa = fa.summary;
  const sb = fb.summary;
  const names = [...new Set([...Object.keys(sa), ...Object.keys(sb)])];
  const benchmarks = names.map((name) => {
    const x = sa[name];
    const y = sb[name];
    const delta: Record<string, number> = {};
    if (x && y) {
      for (const [k, v] of Object.entries(y)) {
        const u = x[k];
        if (typeof v === 'number' && typeof u === 'number') delta[k] = v - u;
      }
    }
    return { benchmark: name, a: x, b: y, delta };
  });
  const accA = accuracy(fa.records);
  const accB = accuracy(fb.records);
  const flipped: FlippedExample[] = [];
  for (const [id, x] of accA) {
    const y = accB.get(id);
    if (y === undefined) continue;
    const solvedA = x > 0.5;
    const solvedB = y > 0.5;
    if (solvedA !== solvedB) {
      flipped.push({ id, benchmark: splitResultId(id).benchmark, a: x, b: y, direction: solvedB ? 'gained' : 'lost' });
    }
  }
  flipped.sort((p, q) => p.id.localeCompare(q.id, undefined, { numeric: true }));
  return { a, b, benchmarks, flipped };
}

/** A plain-text table of the comparison (what `cookbook eval_compare` prints). */
export function comparisonText(c: Comparison): string {
  const lines = [`a = ${c.a}`, `b = ${c.b}`, ''];
  const width = Math.max(9, ...c.benchmarks.map((d) => d.benchmark.length));
  lines.push(
    `${'benchmark'.padEnd(width)}  ${'a score'.padStart(8)}  ${'b score'.padStart(8)}  ${'delta'.padStart(8)}`,
  );
  for (const d of c.benchmarks) {
    const delta = d.delta.score;
    lines.push(
      `${d.benchmark.padEnd(width)}  ${fmt(d.a?.score).padStart(8)}  ${fmt(d.b?.score).padStart(8)}  ${(delta === undefined ? '–' : `${delta >= 0 ? '+' : ''}${delta.toFixed(4)}`).padStart(8)}`,
    );
  }
  const gained = c.flipped.filter((f) => f.direction === 'gained').length;
  lines.push('', `flipped: ${gained} solved only in b, ${c.flipped.length - gained} solved only in a`);
  return lines.join('\n');
}

/** The comparison page: deltas, then each flipped example's transcripts from both runs. */
export function buildCompareHtml(c: Comparison): string {
  const fields = [...new Set(c.benchmarks.flatMap((d) => Object.keys(d.b ?? d.a ?? {})))];
  const table = `<table class="t"><tr><th>benchmark</th>${fields.map((f) => `<th>${esc(f)} a</th><th>b</th><th>Δ</th>`).join('')}</tr>${c.benchmarks
    .map(
      (d) =>
        `<tr><td>${esc(d.benchmark)}</td>${fields
          .map((f) => {
            const x = d.a?.[f];
            const y = d.b?.[f];
            const dv = d.delta[f];
            const cls = dv === undefined || dv === 0 ? '' : dv > 0 ? 'pos' : 'neg';
            return `<td class="num">${fmt(x)}</td><td class="num">${fmt(y)}</td><td class="num ${cls}">${dv === undefined ? '–' : `${dv > 0 ? '+' : ''}${fmt(dv)}`}</td>`;
          })
          .join('')}</tr>`,
    )
    .join('')}</table>`;
  const ra = new Map<string, SampleRecord[]>();
  const rb = new Map<string, SampleRecord[]>();
  for (const [dir, m] of [
    [c.a, ra],
    [c.b, rb],
  ] as const) {
    for (const r of readEvalFolder(dir).records) (m.get(r.id) ?? m.set(r.id, []).get(r.id)!).push(r);
  }
  const flips = c.flipped
    .map(
      (f) =>
        `<h3>${f.direction === 'gained' ? '<span class="ok">gained</span>' : '<span class="bad">lost</span>'} ${esc(f.id)} · a ${fmt(f.a)} → b ${fmt(f.b)}</h3>` +
        `<p class="meta">a</p>${(ra.get(f.id) ?? []).map(sampleHtml).join('')}<p class="meta">b</p>${(rb.get(f.id) ?? []).map(sampleHtml).join('')}`,
    )
    .join('');
  const body =
    `<h1>Comparison</h1><p class="meta">a = ${esc(c.a)}<br>b = ${esc(c.b)}<br>Generated ${new Date().toISOString()}</p>` +
    `<h2>Per benchmark</h2>${table}<h2>Flipped examples (${c.flipped.length})</h2>${flips || '<p class="meta">none</p>'}`;
  return page('Comparison', body);
}

/** Writes `compare.html` and `compare.json` into `outDir`; returns the HTML path. */
export function writeComparison(c: Comparison, outDir: string): string {
  if (c.benchmarks.length === 0) throw new DataError(`neither ${c.a} nor ${c.b} has benchmark results`);
  writeFileAtomicSync(join(outDir, 'compare.json'), `${JSON.stringify(c, null, 2)}\n`);
  const path = join(outDir, 'compare.html');
  writeFileAtomicSync(path, buildCompareHtml(c));
  return path;
}
