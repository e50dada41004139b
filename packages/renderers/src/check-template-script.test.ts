/**
 * The contributors' `check-template` script as a contributor runs it (a child process through the package script's
 * own command line): a shipped template against its renderer passes, the same template with one character changed is
 * caught and shown side by side, and bad arguments are named.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getTokenizer } from '@cookbook/tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

function checkTemplate(args: string[]) {
  const res = spawnSync(
    process.execPath,
    ['--conditions=@cookbook/source', '--import', 'tsx', join(packageDir, 'scripts', 'check-template.ts'), ...args],
    { cwd: packageDir, encoding: 'utf8', env: { ...process.env, INIT_CWD: packageDir } },
  );
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe('check-template', () => {
  let dir: string;
  let template: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'check-template-'));
    template = getTokenizer('Qwen/Qwen3-8B').chatTemplate!;
  });

  it('passes the shipped Qwen3 template against the qwen3 renderer', () => {
    const file = join(dir, 'qwen3.jinja');
    writeFileSync(file, template);
    const r = checkTemplate([file, 'qwen3', 'count=8', 'arguments=string']);
    expect(r.stderr).toBe('');
    // Seeded conversations that quote a control string differ deliberately (the text stays text): counted apart.
    expect(r.stdout).toMatch(/^qwen3 vs .*qwen3\.jinja \(tokenizer .*\): 8 conversations, \d identical, 0 different/);
    expect(r.status).toBe(0);
  });

  it('catches a template that differs by one character and shows where', () => {
    // The turn separator after `<|im_end|>` doubled: every conversation renders differently from the renderer.
    const changed = template.replaceAll("'<|im_end|>\\n'", "'<|im_end|>\\n\\n'");
    expect(changed).not.toBe(template);
    const file = join(dir, 'qwen3-changed.jinja');
    writeFileSync(file, changed);
    const r = checkTemplate([file, 'qwen3', 'count=4', 'arguments=string']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/4 conversations, \d identical, [1-4] different/);
    expect(r.stdout).toContain('first difference: conversation');
    expect(r.stdout).toMatch(/^>> /m);
  });

  it('names a bad argument and exits 2', () => {
    const file = join(dir, 'qwen3.jinja');
    expect(checkTemplate([file, 'qwen3', 'colour=blue'])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('unknown option "colour"'),
    });
    expect(checkTemplate([file, 'qwen3', 'count=0'])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('count must be an integer in [1, 100000]'),
    });
    expect(checkTemplate([join(dir, 'missing.jinja'), 'qwen3'])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('cannot read'),
    });
  });
});
