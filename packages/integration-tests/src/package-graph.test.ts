/**
 * AGENTS.md's dependency-direction block is the map a contributor reads before adding an import: it must list
 * exactly the sibling `dependencies` of every package.json in the workspace.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
}

/** Folder name (`rl`, `apps/cli` as `apps/cli`) → the sibling packages it depends on, by folder name. */
function workspaceGraph(): Map<string, string[]> {
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
  return new Map(
    manifests.map(({ key, manifest }) => [
      key,
      Object.keys(manifest.dependencies ?? {})
        .filter((d) => keyOf.has(d))
        .map((d) => keyOf.get(d)!)
        .sort(),
    ]),
  );
}

/** The graph AGENTS.md states: `a, b → x, y   (notes)` per line. */
function documentedGraph(): Map<string, string[]> {
  const text = readFileSync(join(ROOT, 'AGENTS.md'), 'utf8');
  const section = text.slice(text.indexOf('## Dependency direction'));
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const out = new Map<string, string[]>();
  for (const line of block.split('\n').filter((l) => l.trim() !== '')) {
    const [left, right = ''] = line.split('→');
    const deps = right.includes('(nothing of ours)')
      ? []
      : right
          .replace(/\(.*\)/, '')
          .split(',')
          .map((d) => d.trim())
          .filter((d) => d !== '');
    for (const name of left!.split(',').map((n) => n.trim())) {
      expect(out.has(name), `${name} is listed twice in AGENTS.md`).toBe(false);
      out.set(name, deps.sort());
    }
  }
  return out;
}

describe('AGENTS.md dependency direction', () => {
  it('lists every workspace package with exactly its sibling dependencies', () => {
    const actual = workspaceGraph();
    const documented = documentedGraph();
    expect([...documented.keys()].sort()).toEqual([...actual.keys()].sort());
    for (const [name, deps] of actual) expect(documented.get(name), name).toEqual(deps);
  });
});
