/**
 * For contributors: does a renderer render like a chat template? Runs seeded generated conversations (the
 * conformance suite's: tools, parallel calls, reasoning, empty texts, Unicode, quoted control strings) through the
 * renderer and through the template, prints the counts and the first conversation that differs in an undocumented
 * way, with both renderings side by side. Exit code 1 on a difference.
 *
 *   pnpm --filter @cookbook/renderers check-template <template file> <renderer name> [model=<name or folder>]
 *     [count=500] [seed=46] [vars=<JSON template variables>] [arguments=object|string] [reasoning=true|false]
 *     [tools=true|false]
 *
 * `model` picks the tokenizer (default: the first catalogued model that recommends the renderer and whose tokenizer
 * is available offline); the renderer name must be registered (built in, or a renderer package's).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { listModels } from '@cookbook/core';
import { getTokenizer, type Tokenizer } from '@cookbook/tokenizers';
import { getRenderer } from '../src/index.js';
import { runConformance, TemplateConformance, type Verdict } from '../src/internal/conformance.js';
import type { Conversation } from '../src/internal/conversation-generator.js';
import { memoTokenizer } from '../src/internal/memo-tokenizer.js';

const USAGE =
  'usage: check-template <template file> <renderer name> [model=<name or folder>] [count=500] [seed=46] ' +
  '[vars=<JSON>] [arguments=object|string] [reasoning=true|false] [tools=true|false]';

function fail(message: string): never {
  process.stderr.write(`check-template: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function defaultTokenizer(rendererName: string): Tokenizer {
  for (const m of listModels()) {
    if (!m.recommendedRenderers.includes(rendererName) || m.tokenizer.kind !== 'offline') continue;
    return getTokenizer(m.name);
  }
  return fail(
    `no catalogued model with an offline tokenizer recommends "${rendererName}": pass model=<name or folder>`,
  );
}

/**
 * Two columns, one template line (wrapped at `width`) per row, from a few rows before the first difference (marked
 * `>>`) to a screenful after it.
 */
function sideBySide(left: string, right: string, width = 70): string {
  const wrap = (text: string) =>
    text.split('\n').flatMap((line) => {
      const j = JSON.stringify(line).slice(1, -1);
      const out: string[] = [];
      for (let i = 0; i < j.length; i += width) out.push(j.slice(i, i + width));
      return out.length === 0 ? [''] : out;
    });
  const a = wrap(left);
  const b = wrap(right);
  let first = 0;
  while (first < Math.max(a.length, b.length) && a[first] === b[first]) first++;
  const rows = [`   ${'template'.padEnd(width)} | renderer`];
  const from = Math.max(0, first - 4);
  const to = Math.min(Math.max(a.length, b.length), first + 16);
  if (from > 0) rows.push(`   … ${from} equal rows`);
  for (let i = from; i < to; i++) {
    rows.push(`${i === first ? '>>' : '  '} ${(a[i] ?? '').padEnd(width)} | ${b[i] ?? ''}`);
  }
  return rows.join('\n');
}

function main(argv: readonly string[]): void {
  const [file, rendererName, ...rest] = argv;
  if (file === undefined || rendererName === undefined) fail('give a template file and a renderer name');
  const opts = new Map<string, string>();
  for (const a of rest) {
    const eq = a.indexOf('=');
    if (eq <= 0) fail(`expected key=value, got "${a}"`);
    opts.set(a.slice(0, eq), a.slice(eq + 1));
  }
  const known = new Set(['model', 'count', 'seed', 'vars', 'arguments', 'reasoning', 'tools']);
  for (const k of opts.keys()) if (!known.has(k)) fail(`unknown option "${k}"`);
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), file);
  let source: string;
  try {
    source = readFileSync(path, 'utf8');
  } catch (e) {
    fail(`cannot read ${path}: ${(e as Error).message}`);
  }
  const count = Number(opts.get('count') ?? 500);
  const seed = Number(opts.get('seed') ?? 46);
  if (!Number.isInteger(count) || count < 1 || count > 100_000) fail(`count must be an integer in [1, 100000]`);
  if (!Number.isInteger(seed)) fail('seed must be an integer');
  let variables: Record<string, unknown> = {};
  if (opts.has('vars')) {
    try {
      variables = JSON.parse(opts.get('vars')!) as Record<string, unknown>;
    } catch (e) {
      fail(`vars is not JSON: ${(e as Error).message}`);
    }
  }
  const flag = (k: string) => opts.get(k) !== 'false';
  const model = opts.get('model');
  const tokenizer = memoTokenizer(model === undefined ? defaultTokenizer(rendererName) : getTokenizer(model));
  const renderer = getRenderer(rendererName, tokenizer, { variables, template: source, templateName: file });
  const conf = new TemplateConformance(renderer, tokenizer, source, {
    variables,
    features: { tools: flag('tools'), reasoning: flag('reasoning'), leadingWhitespace: true },
    argumentsAsObjects: opts.get('arguments') !== 'string',
    seam: true,
  });
  conf.verifyEncoding = count;
  const counts = runConformance(conf, count, seed);
  const deliberate = Object.entries(counts.deliberate).map(([k, v]) => `${v} ${k}`);
  process.stdout.write(
    `${rendererName} vs ${file} (tokenizer ${tokenizer.name}): ${counts.conversations} conversations, ` +
      `${counts.identical} identical, ${counts.different} different` +
      `${deliberate.length > 0 ? `, deliberate: ${deliberate.join(', ')}` : ''}\n`,
  );
  const d = counts.firstDifference;
  if (d === undefined) return;
  const v = d.verdict as Verdict & { kind: 'different' };
  const c: Conversation = d.conversation;
  process.stdout.write(
    `\nfirst difference: conversation ${d.index}, ${v.where}\n${JSON.stringify(c, null, 1)}\n\n` +
      `${sideBySide(v.expected, v.got)}\n`,
  );
  process.exitCode = 1;
}

main(process.argv.slice(2));
