/**
 * AGENTS.md's dependency-direction block is the map a contributor reads before adding an import: it must list
 * exactly the sibling `dependencies`, `devDependencies` (`[dev: …]`) and `peerDependencies` (`[peer: …]`) of every
 * package.json in the workspace.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

type Kind = 'dependencies' | 'devDependencies' | 'peerDependencies';
const KINDS: readonly Kind[] = ['dependencies', 'devDependencies', 'peerDependencies'];

/** Per package folder (`rl`, `apps/cli`): its sibling dependencies of each kind, by folder name. */
type Graph = Map<string, Record<Kind, string[]>>;

/** Folder name (`rl`, `apps/cli` as `apps/cli`) → the sibling packages it depends on, by folder name. */
function workspaceGraph(): Graph {
  const manifests: { key: string; manifest: Manifest }[] = [];
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(ROOT, group))) {
      const file = join(ROOT, group, entry, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
      manifests.push({ key: group === 'apps' ? `apps/${entry}` : entry, manifest });
    }
  }
  const keyOf = new Map(manifests.map(({ key, manifest }) => [manifest.name, key]));
  const siblings = (deps: Record<string, string> | undefined) =>
    Object.keys(deps ?? {})
      .filter((d) => keyOf.has(d))
      .map((d) => keyOf.get(d)!)
      .sort();
  return new Map(
    manifests.map(({ key, manifest }) => [
      key,
      {
        dependencies: siblings(manifest.dependencies),
        devDependencies: siblings(manifest.devDependencies),
        peerDependencies: siblings(manifest.peerDependencies),
      },
    ]),
  );
}

/** The names of a `[dev: a, b]` / `[peer: c]` list on a line; none when absent. */
function bracketList(line: string, tag: 'dev' | 'peer'): string[] {
  const m = new RegExp(`\\[${tag}:([^\\]]*)\\]`).exec(line);
  if (m === null) return [];
  return m[1]!
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '')
    .sort();
}

/** The graph AGENTS.md states: `a, b → x, y   [dev: …] [peer: …]   (note)` per line. */
function documentedGraph(): Graph {
  const text = readFileSync(join(ROOT, 'AGENTS.md'), 'utf8');
  const section = text.slice(text.indexOf('## Dependency direction'));
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const out: Graph = new Map();
  for (const line of block.split('\n').filter((l) => l.trim() !== '')) {
    const [left, right = ''] = line.split('→');
    const deps = right.includes('(nothing of ours)')
      ? []
      : right
          .replace(/\[[^\]]*\]/g, '')
          .replace(/\(.*\)/, '')
          .split(',')
          .map((d) => d.trim())
          .filter((d) => d !== '');
    for (const name of left!.split(',').map((n) => n.trim())) {
      expect(out.has(name), `${name} is listed twice in AGENTS.md`).toBe(false);
      out.set(name, {
        dependencies: deps.sort(),
        devDependencies: bracketList(right, 'dev'),
        peerDependencies: bracketList(right, 'peer'),
      });
    }
  }
  return out;
}

describe('AGENTS.md dependency direction', () => {
  it('lists every workspace package with exactly its sibling dependencies, dev and peer dependencies', () => {
    const actual = workspaceGraph();
    const documented = documentedGraph();
    expect([...documented.keys()].sort()).toEqual([...actual.keys()].sort());
    for (const [name, deps] of actual) {
      for (const kind of KINDS) expect(documented.get(name)?.[kind], `${name} ${kind}`).toEqual(deps[kind]);
    }
  });

  it('reads the dev and peer lists of a line', () => {
    expect(bracketList('core   [dev: local-tinker, rl] [peer: local-tinker]   (note)', 'dev')).toEqual([
      'local-tinker',
      'rl',
    ]);
    expect(bracketList('core   [dev: local-tinker] [peer: local-tinker]', 'peer')).toEqual(['local-tinker']);
    expect(bracketList('core   (note)', 'dev')).toEqual([]);
  });
});
