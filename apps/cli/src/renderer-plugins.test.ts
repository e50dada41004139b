import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isRendererRegistered } from '@cookbook/renderers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from './cli.js';
import { slBasic } from './recipes/sl-basic.js';
import { ensureRendererPlugin, extractRendererPackage } from './renderer-plugins.js';

describe('renderer plug-ins from the command line', () => {
  it('renderer_name=chatml finds and imports the installed cookbook-renderer-chatml', async () => {
    expect(isRendererRegistered('chatml')).toBe(false);
    await ensureRendererPlugin('chatml');
    expect(isRendererRegistered('chatml')).toBe(true);
  });

  it('says what it looked for and how to fix an unknown renderer', async () => {
    await expect(ensureRendererPlugin('nosuchformat')).rejects.toThrow(
      /unknown renderer "nosuchformat"\. Known renderers: .*looked for cookbook-renderer-nosuchformat.*install cookbook-renderer-nosuchformat.*renderer_package=/,
    );
    const err: string[] = [];
    const code = await runCli(['sl_basic', 'renderer_name=nosuchformat'], [slBasic], {
      out: () => {},
      err: (t) => err.push(t),
    });
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/^cookbook sl_basic: unknown renderer "nosuchformat"/);
  });

  it('renderer_package imports a package by path; a missing one is a clear error', async () => {
    const entry = fileURLToPath(new URL('../../../packages/renderer-chatml/src/index.ts', import.meta.url));
    await ensureRendererPlugin(null, entry);
    expect(isRendererRegistered('chatml')).toBe(true);
    await expect(ensureRendererPlugin(null, './no/such/renderer.js')).rejects.toThrow(
      'renderer_package=./no/such/renderer.js: no such package or file is installed here',
    );
    expect(extractRendererPackage(['a=1', 'renderer_package=x', 'b=2'])).toEqual({
      args: ['a=1', 'b=2'],
      rendererPackage: 'x',
    });
  });

  it('cookbook sl_basic renderer_name=chatml max_steps=1 trains with the plug-in renderer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-chatml-'));
    projects.push(dir);
    vi.stubEnv('COOKBOOK_LOCAL_TINKER_ROOT', join(dir, 'service'));
    vi.stubEnv('TINKER_BASE_URL', '');
    vi.stubEnv('TINKER_API_KEY', '');
    const out: string[] = [];
    const err: string[] = [];
    const logPath = join(dir, 'run');
    const args = ['sl_basic', 'renderer_name=chatml', 'max_steps=1', `log_path=${logPath}`];
    const code = await runCli(args, [slBasic], { out: (t) => out.push(t), err: (t) => err.push(t) });
    expect(code, err.join('\n')).toBe(0);
    expect(JSON.parse(readFileSync(join(logPath, 'config.json'), 'utf8')).renderer_name).toBe('chatml');
    expect(out.join('\n')).toMatch(/step +0 +train_mean_nll \d/);
  }, 120_000);

  it('finds a scoped @<scope>/cookbook-renderer-<name> and imports renderer_package by package name', async () => {
    const project = projectWithPlugins('scopedfmt', 'byname');
    vi.spyOn(process, 'cwd').mockReturnValue(project);
    expect(isRendererRegistered('scopedfmt')).toBe(false);
    await ensureRendererPlugin('scopedfmt');
    expect(isRendererRegistered('scopedfmt')).toBe(true);
    expect(isRendererRegistered('byname')).toBe(false);
    await ensureRendererPlugin(null, '@acme/cookbook-renderer-byname');
    expect(isRendererRegistered('byname')).toBe(true);
  });
});

const projects: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  for (const p of projects.splice(0)) rmSync(p, { recursive: true, force: true });
});

/**
 * A user's project with renderer packages `@acme/cookbook-renderer-<name>` installed, each registering `<name>` (a
 * role-colon format) when imported, through the same @cookbook/renderers the CLI uses.
 */
function projectWithPlugins(...names: string[]): string {
  const project = mkdtempSync(join(tmpdir(), 'cli-plugins-'));
  projects.push(project);
  const renderers = pathToFileURL(fileURLToPath(new URL('../../../packages/renderers/src/index.ts', import.meta.url)));
  mkdirSync(join(project, 'node_modules', '@acme'), { recursive: true });
  for (const name of names) {
    // A linked local package (`npm link`, `file:`): node_modules holds a link to its folder. (The test runner loads
    // files inside node_modules natively, where the renderers' TypeScript source could not be imported.)
    const dir = join(project, 'packages', `cookbook-renderer-${name}`);
    mkdirSync(dir, { recursive: true });
    symlinkSync(dir, join(project, 'node_modules', '@acme', `cookbook-renderer-${name}`), 'dir');
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: `@acme/cookbook-renderer-${name}`, type: 'module', main: 'index.js' }),
    );
    writeFileSync(
      join(dir, 'index.js'),
      `import { getRenderer, registerRenderer } from ${JSON.stringify(renderers.href)};\n` +
        `registerRenderer(${JSON.stringify(name)}, (tokenizer) => getRenderer('role_colon', tokenizer));\n`,
    );
  }
  return project;
}
