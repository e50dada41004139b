import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { resolveModelSetup } from './model-setup.js';

describe('resolveModelSetup', () => {
  it("builds the model's tokenizer and recommended renderer once per run", () => {
    const a = resolveModelSetup({ modelName: 'local/qwen3-tiny' });
    expect(a.rendererName).toBe('qwen3_disable_thinking');
    expect(a.model?.family).toBe('qwen3');
    expect(a.tokenizer).toBe(getTokenizer('local/qwen3-tiny'));
    expect(a.renderer.tokenizer).toBe(a.tokenizer);
    // A second site of the same run (dataset builder, loop, evaluator) gets the same objects.
    expect(resolveModelSetup({ modelName: 'local/qwen3-tiny', rendererName: null })).toBe(a);
    expect(resolveModelSetup({ modelName: 'local/qwen3-tiny', rendererName: 'qwen3_disable_thinking' })).toBe(a);
  });

  it('uses an explicit renderer, warning when the catalog does not recommend it', () => {
    const warnings: string[] = [];
    const setup = resolveModelSetup({
      modelName: 'local/llama3-tiny',
      rendererName: 'role_colon',
      warn: (m) => warnings.push(m),
    });
    expect(setup.rendererName).toBe('role_colon');
    expect(warnings).toEqual([expect.stringMatching(/"role_colon" is not recommended .*recommended: llama3\./)]);
  });

  it('renderer options give a setup of their own', () => {
    const a = resolveModelSetup({ modelName: 'openai/gpt-oss-20b', rendererOptions: { currentDate: '2025-01-01' } });
    const b = resolveModelSetup({ modelName: 'openai/gpt-oss-20b', rendererOptions: { currentDate: '2025-01-01' } });
    expect(a.rendererName).toBe('gpt_oss_no_sysprompt');
    expect(a).not.toBe(b);
    expect(a.tokenizer).toBe(b.tokenizer);
  });

  it('refuses an unknown model or renderer with the catalog / registry lists', () => {
    expect(() => resolveModelSetup({ modelName: 'acme/unknown-7b' })).toThrow(/not in the model catalog/);
    expect(() => resolveModelSetup({ modelName: 'local/qwen3-tiny', rendererName: 'nope' })).toThrow(
      /unknown renderer "nope"\. Known renderers: role_colon, llama3/,
    );
  });
});
