import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRegisteredRendererNames, getRenderer, registerRenderer, unregisterRenderer } from '@cookbook/renderers';
import { runLoop } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from './cli.js';
import type { Recipe } from './recipe.js';

const seen: unknown[] = [];
const demo: Recipe = {
  name: 'demo',
  description: 'A demo recipe',
  schema: z.object({
    learning_rate: z.number().default(1e-4).describe('Peak learning rate'),
    steps: z.number().int().default(3).describe('Steps to run'),
  }),
  async run(config) {
    seen.push(config);
  },
};

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('runCli', () => {
  it('lists recipes on --help', async () => {
    const c = capture();
    expect(await runCli(['--help'], [demo], c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(/demo\s+A demo recipe/);
  });

  it('prints every field of a recipe on <recipe> --help', async () => {
    const c = capture();
    expect(await runCli(['demo', '--help'], [demo], c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(/learning_rate\s+number\s+\(default: 0.0001\)/);
    expect(c.out.join('\n')).toContain('Steps to run');
  });

  it('lists the registered renderer names under a recipe with renderer_name, from the registry', async () => {
    const withRenderer: Recipe = {
      ...demo,
      name: 'demo_renderer',
      schema: z.object({ rendererName: z.string().nullable().default(null).describe('Renderer') }),
    };
    registerRenderer('zz_help_test', (tok) => getRenderer('role_colon', tok));
    try {
      const c = capture();
      expect(await runCli(['demo_renderer', '--help'], [withRenderer], c.io)).toBe(0);
      const help = c.out.join('\n');
      expect(help).toContain("renderer_name values (default: the model's recommended renderer):");
      const listed = help.slice(help.indexOf('renderer_name values')).split('\n').slice(1).join(' ');
      expect(listed.split(/[\s,]+/).filter((n) => n !== '')).toEqual(getRegisteredRendererNames());
      expect(listed).toContain('zz_help_test');
      const c2 = capture();
      await runCli(['demo', '--help'], [demo], c2.io);
      expect(c2.out.join('\n')).not.toContain('renderer_name values');
    } finally {
      unregisterRenderer('zz_help_test');
    }
  });

  it('runs a recipe with parsed key=value arguments', async () => {
    const c = capture();
    expect(await runCli(['demo', 'steps=5'], [demo], c.io)).toBe(0);
    expect(seen.at(-1)).toEqual({ learning_rate: 1e-4, steps: 5 });
  });

  it("fetches a Hub-only model's tokenizer before the run, and offline names the repo instead of running", async () => {
    const ran: unknown[] = [];
    const withModel: Recipe = {
      name: 'demo_model',
      description: 'A recipe with a model',
      schema: z.object({ modelName: z.string().default('local/qwen3-tiny').describe('Model') }),
      async run(config) {
        ran.push(config);
      },
    };
    const offline = process.env.HF_HUB_OFFLINE;
    const cache = process.env.HF_HUB_CACHE;
    const emptyCache = mkdtempSync(join(tmpdir(), 'hub-cache-'));
    process.env.HF_HUB_OFFLINE = '1';
    process.env.HF_HUB_CACHE = emptyCache;
    try {
      const c = capture();
      expect(await runCli(['demo_model', 'model_name=Qwen/Qwen3.5-9B'], [withModel], c.io)).not.toBe(0);
      expect(ran).toEqual([]);
      expect(c.err.join('\n')).toContain('Hugging Face Hub repo Qwen/Qwen3.5-9B');
      // A model with an offline tokenizer package runs as before.
      expect(await runCli(['demo_model'], [withModel], capture().io)).toBe(0);
      expect(ran).toHaveLength(1);
    } finally {
      if (offline === undefined) delete process.env.HF_HUB_OFFLINE;
      else process.env.HF_HUB_OFFLINE = offline;
      if (cache === undefined) delete process.env.HF_HUB_CACHE;
      else process.env.HF_HUB_CACHE = cache;
      rmSync(emptyCache, { recursive: true, force: true });
    }
  });

  it('names an unknown key and suggests the closest valid one', async () => {
    const c = capture();
    expect(await runCli(['demo', 'step=5'], [demo], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(/unknown config key "step"; did you mean "steps"/);
  });

  it('names an unknown recipe and suggests the closest one', async () => {
    const c = capture();
    expect(await runCli(['dem'], [demo], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(/unknown recipe "dem"; did you mean "demo"/);
  });
});

describe('an interrupted run exits non-zero (regression: Ctrl-C exited 0, so `train && eval` went on)', () => {
  const dirs: string[] = [];
  const interruptible = (signal: 'SIGINT' | 'SIGTERM' | undefined): Recipe => ({
    name: 'train',
    description: 'A run that gets a signal at its second step',
    schema: z.object({}),
    async run() {
      const logPath = mkdtempSync(join(tmpdir(), 'cli-run-'));
      dirs.push(logPath);
      await runLoop(
        { logPath, behaviorIfLogDirExists: 'resume', config: {}, console: false, progress: false, log: () => {} },
        async (run) => {
          let step = 0;
          for (; step < 5 && !run.signal.aborted; step++) {
            run.logger.logMetrics({ loss: step }, step);
            if (step === 1 && signal !== undefined) process.emit(signal, signal);
          }
          return { totalSteps: 5, endStep: step };
        },
      );
    },
  });

  it('130 after SIGINT, 143 after SIGTERM, 0 when it ran to the end', async () => {
    try {
      expect(await runCli(['train'], [interruptible('SIGINT')], capture().io)).toBe(130);
      expect(await runCli(['train'], [interruptible('SIGTERM')], capture().io)).toBe(143);
      expect(await runCli(['train'], [interruptible(undefined)], capture().io)).toBe(0);
      for (const d of dirs) expect(existsSync(join(d, 'report.html'))).toBe(true);
    } finally {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    }
  });
});
