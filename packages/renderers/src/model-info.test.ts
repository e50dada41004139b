import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listModels } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { getRecommendedRendererNames, rendererNotRecommendedWarning, resolveRendererName } from './model-info.js';
import { isRendererRegistered } from './registry.js';

/**
 * The upstream cookbook's model table, written down from `tinker_cookbook/model_info.py` (tinker-cookbook, the
 * `get_*_info()` tables and their renderer tuples): every hosted model name and its recommended renderers, best first.
 */
const UPSTREAM_RECOMMENDED: Record<string, string[]> = {
  'meta-llama/Llama-3.1-8B-Instruct': ['llama3'],
  'meta-llama/Llama-3.2-1B': ['role_colon'],
  'meta-llama/Llama-3.2-3B': ['role_colon'],
  'meta-llama/Llama-3.1-8B': ['role_colon'],
  'meta-llama/Llama-3.1-70B': ['role_colon'],
  'meta-llama/Llama-3.3-70B-Instruct': ['llama3'],
  'Qwen/Qwen3-VL-30B-A3B-Instruct': ['qwen3_vl_instruct'],
  'Qwen/Qwen3-VL-235B-A22B-Instruct': ['qwen3_vl_instruct'],
  'Qwen/Qwen3-8B-Base': ['role_colon'],
  'Qwen/Qwen3-30B-A3B-Base': ['role_colon'],
  'Qwen/Qwen3-8B': ['qwen3', 'qwen3_disable_thinking'],
  'Qwen/Qwen3-32B': ['qwen3', 'qwen3_disable_thinking'],
  'Qwen/Qwen3-30B-A3B': ['qwen3', 'qwen3_disable_thinking'],
  'Qwen/Qwen3-4B-Instruct-2507': ['qwen3_instruct'],
  'Qwen/Qwen3-30B-A3B-Instruct-2507': ['qwen3_instruct'],
  'Qwen/Qwen3-235B-A22B-Instruct-2507': ['qwen3_instruct'],
  'Qwen/Qwen3.5-4B': ['qwen3_5', 'qwen3_5_disable_thinking'],
  'Qwen/Qwen3.5-9B': ['qwen3_5', 'qwen3_5_disable_thinking'],
  'Qwen/Qwen3.5-9B-Base': ['role_colon'],
  'Qwen/Qwen3.5-27B': ['qwen3_5', 'qwen3_5_disable_thinking'],
  'Qwen/Qwen3.5-35B-A3B': ['qwen3_5', 'qwen3_5_disable_thinking'],
  'Qwen/Qwen3.5-35B-A3B-Base': ['role_colon'],
  'Qwen/Qwen3.5-397B-A17B': ['qwen3_5', 'qwen3_5_disable_thinking'],
  'Qwen/Qwen3.6-27B': ['qwen3_5', 'qwen3_5_disable_thinking'],
  'Qwen/Qwen3.6-35B-A3B': ['qwen3_5', 'qwen3_5_disable_thinking'],
  'Qwen/Qwen3.8-27B': [
    'qwen3_8_xhigh_reasoning',
    'qwen3_8_disable_thinking',
    'qwen3_8_medium_reasoning',
    'qwen3_8_low_reasoning',
  ],
  'deepseek-ai/DeepSeek-V3.1': ['deepseekv3', 'deepseekv3_thinking'],
  'deepseek-ai/DeepSeek-V3.1-Base': ['role_colon'],
  'openai/gpt-oss-20b': ['gpt_oss_no_sysprompt', 'gpt_oss_medium_reasoning'],
  'openai/gpt-oss-120b': ['gpt_oss_no_sysprompt', 'gpt_oss_medium_reasoning'],
  'moonshotai/Kimi-K2-Thinking': ['kimi_k2'],
  'moonshotai/Kimi-K2.5': ['kimi_k25', 'kimi_k25_disable_thinking'],
  'moonshotai/Kimi-K2.6': ['kimi_k26', 'kimi_k26_disable_thinking', 'kimi_k26_preserve_thinking'],
  'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16': [
    'nemotron3',
    'nemotron3_disable_thinking',
    'nemotron3_preserve_thinking',
  ],
  'nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16': [
    'nemotron3',
    'nemotron3_disable_thinking',
    'nemotron3_preserve_thinking',
    'nemotron3_low_thinking',
  ],
  'nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16': [
    'nemotron3_ultra',
    'nemotron3_ultra_disable_thinking',
    'nemotron3_ultra_medium_thinking',
    'nemotron3_ultra_preserve_thinking',
  ],
  'nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16': [
    'nemotron3_ultra',
    'nemotron3_ultra_disable_thinking',
    'nemotron3_ultra_preserve_thinking',
  ],
  // Upstream matches every `thinkingmachines/Inkling*` name.
  'thinkingmachines/Inkling': ['tml_v0'],
  'thinkingmachines/Inkling-Small': ['tml_v0'],
};

/** Vision models of the same table (`is_vl=True`). */
const UPSTREAM_VISION = [
  'Qwen/Qwen3-VL-30B-A3B-Instruct',
  'Qwen/Qwen3-VL-235B-A22B-Instruct',
  'Qwen/Qwen3.5-4B',
  'Qwen/Qwen3.5-9B',
  'Qwen/Qwen3.5-9B-Base',
  'Qwen/Qwen3.5-27B',
  'Qwen/Qwen3.5-35B-A3B',
  'Qwen/Qwen3.5-35B-A3B-Base',
  'Qwen/Qwen3.5-397B-A17B',
  'Qwen/Qwen3.6-27B',
  'Qwen/Qwen3.6-35B-A3B',
  'Qwen/Qwen3.8-27B',
  'moonshotai/Kimi-K2.5',
  'moonshotai/Kimi-K2.6',
  'thinkingmachines/Inkling',
  'thinkingmachines/Inkling-Small',
];

describe('the hosted lineup equals the upstream model table', () => {
  it.each(Object.entries(UPSTREAM_RECOMMENDED))('%s → %j', (model, renderers) => {
    expect(getRecommendedRendererNames(model)).toEqual(renderers);
    expect(getRecommendedRendererNames(`${model}:peft:131072`)).toEqual(renderers);
  });

  it('catalogues every upstream model as hosted, and no other hosted model', () => {
    const hosted = listModels()
      .filter((m) => m.hosted)
      .map((m) => m.name)
      .sort();
    expect(hosted).toEqual(Object.keys(UPSTREAM_RECOMMENDED).sort());
  });

  it('takes images exactly where upstream says so', () => {
    const vision = listModels()
      .filter((m) => m.vision)
      .map((m) => m.name)
      .sort();
    expect(vision).toEqual([...UPSTREAM_VISION].sort());
  });

  it('base models get role_colon', () => {
    for (const m of listModels().filter((e) => e.base)) expect(m.recommendedRenderers).toEqual(['role_colon']);
  });
});

describe('every recommended renderer is registered', () => {
  it.each([...new Set(listModels().flatMap((m) => m.recommendedRenderers))].sort())('%s', (name) => {
    expect(isRendererRegistered(name)).toBe(true);
  });
});

describe("the README's model table", () => {
  it('lists every catalogued model with its recommended renderers', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf('## Models and their renderers');
    const end = readme.indexOf('\n## ', start + 1);
    const section = readme.slice(start, end === -1 ? undefined : end);
    const rows = [...section.matchAll(/^\| `([^`]+)`\s*\| ([^|]+)\|/gm)].map((m) => [
      m[1],
      [...(m[2] ?? '').matchAll(/`([^`]+)`/g)].map((r) => r[1]),
    ]);
    expect(rows).toEqual(listModels().map((m) => [m.name, [...m.recommendedRenderers]]));
  });
});

describe('unknown models and local folders', () => {
  it('an unknown model names the families the catalog knows', () => {
    expect(() => getRecommendedRendererNames('acme/unknown-7b')).toThrow(
      /no recommended renderer for model "acme\/unknown-7b": it is not in the model catalog\. Known: Llama 3 \(.*Kimi K2 \(.*Nemotron 3 \(/,
    );
  });

  it('a local folder resolves by its chat template', () => {
    const dir = mkdtempSync(join(tmpdir(), 'model-'));
    writeFileSync(join(dir, 'tokenizer.json'), '{}');
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ chat_template: '<|start_header_id|>' }));
    expect(getRecommendedRendererNames(dir)).toEqual(['llama3']);
  });

  it('a local folder whose template matches no hand-written family gets chat_template; none gets role_colon', () => {
    const dir = mkdtempSync(join(tmpdir(), 'model-'));
    writeFileSync(join(dir, 'tokenizer.json'), '{}');
    expect(getRecommendedRendererNames(dir)).toEqual(['role_colon']);
    writeFileSync(join(dir, 'chat_template.jinja'), '[INST] {{ messages[0].content }} [/INST]');
    expect(getRecommendedRendererNames(dir)).toEqual(['chat_template']);
    expect(() => getRecommendedRendererNames('acme/unknown-7b')).toThrow(/chat_template renders with the model's own/);
  });

  it("chat_template, the model's own template, is not warned about for a chat model, only for a base model", () => {
    expect(rendererNotRecommendedWarning('Qwen/Qwen3-32B', 'chat_template')).toBeUndefined();
    expect(rendererNotRecommendedWarning('Qwen/Qwen3-8B-Base', 'chat_template')).toMatch(/recommended: role_colon/);
  });
});

describe('a renderer the catalog does not recommend', () => {
  it('warns once, naming the recommended ones, and is used', () => {
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    expect(resolveRendererName('Qwen/Qwen3-32B', 'llama3', warn)).toBe('llama3');
    expect(resolveRendererName('Qwen/Qwen3-32B', 'llama3', warn)).toBe('llama3');
    expect(warnings).toEqual([
      'renderer "llama3" is not recommended for model "Qwen/Qwen3-32B"; recommended: qwen3, qwen3_disable_thinking. ' +
        'An unsuited renderer can silently degrade training (e.g. prefilling tokens the model was never trained on).',
    ]);
  });

  it('says nothing for a recommended renderer, the default, a folder or an unknown model', () => {
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    expect(resolveRendererName('Qwen/Qwen3-8B', 'qwen3_disable_thinking', warn)).toBe('qwen3_disable_thinking');
    expect(resolveRendererName('Qwen/Qwen3-8B', null, warn)).toBe('qwen3');
    expect(resolveRendererName('acme/x', 'role_colon', warn)).toBe('role_colon');
    expect(warnings).toEqual([]);
    expect(rendererNotRecommendedWarning('openai/gpt-oss-20b', 'gpt_oss_high_reasoning')).toMatch(
      /recommended: gpt_oss_no_sysprompt, gpt_oss_medium_reasoning/,
    );
  });
});
