import { configFields } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { recipes } from '../recipes.js';
import { codeRl, codeRlSchema } from './code-rl.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('code_rl recipe: config', () => {
  it('is registered; every field has a description and a default; --help names the sandbox backends', async () => {
    expect(recipes.map((r) => r.name)).toContain('code_rl');
    for (const f of configFields(codeRl.schema)) {
      expect(f.description, f.path).not.toBe('');
      expect(f.required, f.path).toBe(false);
    }
    const c = capture();
    expect(await runCli(['code_rl', '--help'], [codeRl], c.io)).toBe(0);
    const help = c.out.join('\n');
    expect(help).toMatch(/sandbox_backend[\s\S]*bubblewrap[\s\S]*sandbox_fusion[\s\S]*unsafe_local/);
    expect(help).toMatch(/tiny stand-in[\s\S]*TINKER_API_KEY/);
    const d = codeRlSchema.parse({});
    expect([d.sandboxBackend, d.testTimeoutSeconds, d.online]).toEqual(['bubblewrap', 6, false]);
  });

  it('rejects an unknown sandbox backend with exit code 2', async () => {
    const c = capture();
    expect(await runCli(['code_rl', 'sandbox_backend=docker'], [codeRl], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(
      /sandbox_backend=docker: expected one of "bubblewrap", "sandbox_fusion", "unsafe_local"/,
    );
  });
});
