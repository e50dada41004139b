import { describe, expect, it } from 'vitest';
import { getLr } from './hyperparams.js';
import { listModels } from './model-catalog.js';
import { defaultLearningRate, isHubRepoId, isRepoId, resolveModelRef } from './model-ref.js';

describe('resolveModelRef', () => {
  it('tells the four kinds apart by the name', () => {
    expect(resolveModelRef('local/qwen3-tiny')).toMatchObject({ kind: 'built-in', repoId: undefined });
    expect(resolveModelRef('Qwen/Qwen3-8B:peft:131072')).toMatchObject({
      kind: 'hosted',
      baseName: 'Qwen/Qwen3-8B',
      repoId: 'Qwen/Qwen3-8B',
      family: 'qwen3',
    });
    // A catalogued open checkpoint the hosted service does not serve, and an uncatalogued repository.
    expect(resolveModelRef('Qwen/Qwen3-0.6B')).toMatchObject({ kind: 'hub', repoId: 'Qwen/Qwen3-0.6B' });
    expect(resolveModelRef('acme/x')).toMatchObject({ kind: 'hub', repoId: 'acme/x', entry: undefined });
    expect(resolveModelRef('/models/qwen3')).toMatchObject({ kind: 'folder', repoId: undefined, family: undefined });
    expect(resolveModelRef('./ckpt/a/b').kind).toBe('folder');
  });

  it('knows an uncatalogued Kimi K2 checkpoint by its name, and no look-alike', () => {
    expect(resolveModelRef('moonshotai/Kimi-K2-Instruct-0905').family).toBe('kimi_k2');
    expect(resolveModelRef('moonshotai/Kimi-K2.6:peft:1').family).toBe('kimi_k2');
    expect(resolveModelRef('moonshotai/Kimi-Dev-72B').family).toBeUndefined();
  });

  it("recommends the catalog's first renderer, or the chat template for a model with none", () => {
    for (const m of listModels()) {
      const ref = resolveModelRef(m.name);
      expect(ref.recommendedRenderer).toBe(m.recommendedRenderers[0] ?? 'chat_template');
      expect(ref.recommendedRenderers).toEqual(
        m.recommendedRenderers.length > 0 ? m.recommendedRenderers : ['chat_template'],
      );
    }
    expect(resolveModelRef('acme/x').recommendedRenderer).toBeUndefined();
  });

  it('keeps repository-id syntax apart from the built-in namespace', () => {
    expect(isRepoId('local/qwen3-tiny')).toBe(true);
    expect(isHubRepoId('local/qwen3-tiny')).toBe(false);
    expect(isHubRepoId('Qwen/Qwen3-8B')).toBe(true);
    expect(isHubRepoId('Qwen/Qwen3-8B:peft:1')).toBe(false);
    expect(isRepoId('a/b/c')).toBe(false);
  });
});

describe('defaultLearningRate', () => {
  it('per loop kind: the built-ins their own, the rest the rule (RL a tenth)', () => {
    const tiny = resolveModelRef('local/llama3-tiny');
    expect(defaultLearningRate(tiny, 'supervised')).toBe(1e-2);
    expect(defaultLearningRate(tiny, 'rl')).toBe(1e-3);
    const qwen = resolveModelRef('Qwen/Qwen3-8B');
    expect(defaultLearningRate(qwen, 'supervised')).toBe(getLr('Qwen/Qwen3-8B'));
    expect(defaultLearningRate(qwen, 'rl')).toBe(getLr('Qwen/Qwen3-8B') / 10);
    expect(() => defaultLearningRate(resolveModelRef('acme/x'), 'rl')).toThrow(
      /no default learning rate for acme\/x .*pass learning_rate=/,
    );
  });
});
