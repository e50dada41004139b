import { fileURLToPath } from 'node:url';
import { isRendererRegistered } from '@cookbook/renderers';
import { describe, expect, it } from 'vitest';
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
});
