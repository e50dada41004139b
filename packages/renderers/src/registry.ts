/**
 * Renderer registry (upstream `renderers/__init__.py`: `get_renderer`, `register_renderer`, …). Third-party
 * packages register their renderers here under a name; built-in names cannot be shadowed by accident.
 */
import { ConfigError, findModel } from '@cookbook/core';
import type { Tokenizer } from '@cookbook/tokenizers';
import { ChatTemplateRenderer, type ChatTemplateRendererOptions } from './chat-template-renderer.js';
import { DeepSeekV3Renderer } from './deepseek-v3-renderer.js';
import { GptOssRenderer, type GptOssRendererOptions } from './gpt-oss-renderer.js';
import { KimiRenderer, type KimiRendererOptions } from './kimi-renderer.js';
import { Llama3Renderer } from './llama3-renderer.js';
import { Nemotron3Renderer, type Nemotron3RendererOptions } from './nemotron3-renderer.js';
import { Qwen35Renderer, type Qwen35RendererOptions } from './qwen3-5-renderer.js';
import { Qwen3Renderer } from './qwen3-renderer.js';
import { Qwen3VLRenderer } from './qwen3-vl-renderer.js';
import type { Renderer } from './renderer.js';
import { RoleColonRenderer } from './role-colon-renderer.js';
import { TmlV0Renderer } from './tml-v0-renderer.js';

/** Options passed through to a renderer factory (each renderer reads the keys it knows). */
export type RendererOptions = Record<string, unknown>;

/** Builds a renderer for a tokenizer. */
export type RendererFactory = (tokenizer: Tokenizer, options?: RendererOptions) => Renderer;

const gptOss =
  (reasoningEffort?: GptOssRendererOptions['reasoningEffort']): RendererFactory =>
  (tok, opts) =>
    new GptOssRenderer(tok, {
      ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
      ...(typeof opts?.currentDate === 'string' ? { currentDate: opts.currentDate } : {}),
    });

const boolOpt = (opts: RendererOptions | undefined, key: string): boolean | undefined =>
  typeof opts?.[key] === 'boolean' ? (opts[key] as boolean) : undefined;

/** A Nemotron 3 variant; `stripThinkingFromHistory` in the options overrides the variant's default. */
const nemotron =
  (variant: Nemotron3RendererOptions): RendererFactory =>
  (tok, o) => {
    const strip = boolOpt(o, 'stripThinkingFromHistory');
    return new Nemotron3Renderer(tok, {
      ...variant,
      ...(strip === undefined ? {} : { stripThinkingFromHistory: strip }),
    });
  };

const BUILT_IN: Record<string, RendererFactory> = {
  role_colon: (tok) => new RoleColonRenderer(tok),
  llama3: (tok) => new Llama3Renderer(tok),
  qwen3: (tok, o) => new Qwen3Renderer(tok, qwenOpts('thinking', o)),
  qwen3_disable_thinking: (tok, o) => new Qwen3Renderer(tok, qwenOpts('disable_thinking', o)),
  qwen3_instruct: (tok) => new Qwen3Renderer(tok, { mode: 'instruct' }),
  deepseekv3: (tok, o) => new DeepSeekV3Renderer(tok, deepseekOpts(false, o)),
  deepseekv3_disable_thinking: (tok, o) => new DeepSeekV3Renderer(tok, deepseekOpts(false, o)),
  deepseekv3_thinking: (tok, o) => new DeepSeekV3Renderer(tok, deepseekOpts(true, o)),
  kimi_k2: (tok, o) => new KimiRenderer(tok, kimiOpts({ version: 'k2' }, o)),
  kimi_k25: (tok, o) => new KimiRenderer(tok, kimiOpts({ version: 'k25' }, o)),
  kimi_k25_disable_thinking: (tok) => new KimiRenderer(tok, { version: 'k25', thinking: false }),
  kimi_k26: (tok, o) => new KimiRenderer(tok, kimiOpts({ version: 'k25' }, o)),
  kimi_k26_disable_thinking: (tok) => new KimiRenderer(tok, { version: 'k25', thinking: false }),
  kimi_k26_preserve_thinking: (tok) => new KimiRenderer(tok, { version: 'k25', stripThinkingFromHistory: false }),
  gpt_oss_no_sysprompt: gptOss(),
  gpt_oss_low_reasoning: gptOss('low'),
  gpt_oss_medium_reasoning: gptOss('medium'),
  gpt_oss_high_reasoning: gptOss('high'),
  nemotron3: nemotron({}),
  nemotron3_low_thinking: nemotron({ effort: 'low' }),
  nemotron3_disable_thinking: nemotron({ thinking: false }),
  nemotron3_preserve_thinking: nemotron({ stripThinkingFromHistory: false }),
  nemotron3_ultra: nemotron({ format: 'ultra' }),
  nemotron3_ultra_disable_thinking: nemotron({ format: 'ultra', thinking: false }),
  nemotron3_ultra_medium_thinking: nemotron({ format: 'ultra', effort: 'medium' }),
  nemotron3_ultra_preserve_thinking: nemotron({ format: 'ultra', stripThinkingFromHistory: false }),
  // Qwen3.5 / 3.6, Qwen3.8, Qwen3-VL, Inkling (TMLv0).
  qwen3_5: (tok, o) => new Qwen35Renderer(tok, qwen35Opts({ family: 'qwen3_5' }, o)),
  qwen3_5_disable_thinking: (tok, o) => new Qwen35Renderer(tok, qwen35Opts({ family: 'qwen3_5', thinking: false }, o)),
  qwen3_8_xhigh_reasoning: (tok, o) => new Qwen35Renderer(tok, qwen35Opts({ family: 'qwen3_8' }, o)),
  qwen3_8_medium_reasoning: (tok, o) =>
    new Qwen35Renderer(tok, qwen35Opts({ family: 'qwen3_8', reasoningEffort: 'medium' }, o)),
  qwen3_8_low_reasoning: (tok, o) =>
    new Qwen35Renderer(tok, qwen35Opts({ family: 'qwen3_8', reasoningEffort: 'low' }, o)),
  qwen3_8_disable_thinking: (tok, o) => new Qwen35Renderer(tok, qwen35Opts({ family: 'qwen3_8', thinking: false }, o)),
  qwen3_vl: (tok, o) => new Qwen3VLRenderer(tok, { thinking: true, ...stripOpt(o) }),
  qwen3_vl_instruct: (tok) => new Qwen3VLRenderer(tok, { thinking: false }),
  tml_v0: (tok, o) => new TmlV0Renderer(tok, typeof o?.effort === 'number' ? { effort: o.effort } : {}),
  // The model's own Jinja template (any model with one).
  chat_template: (tok, o) => chatTemplate(tok, o),
};

/**
 * `chat_template` with the renderer options `template`, `templateName`, `variables`, `toolArguments`; responses are
 * parsed by the hand-written renderer the catalog recommends for the model (`modelName`, which the model setup
 * passes, else the tokenizer's name) when it stops on the same token (it knows the family's reasoning and tool-call
 * format), else as text.
 */
function chatTemplate(tok: Tokenizer, o: RendererOptions | undefined): Renderer {
  const str = (k: string) => (typeof o?.[k] === 'string' ? { [k]: o[k] as string } : {});
  const vars = o?.variables;
  const options: ChatTemplateRendererOptions = {
    ...str('template'),
    ...str('templateName'),
    ...(vars !== null && typeof vars === 'object' && !Array.isArray(vars)
      ? { variables: vars as Record<string, unknown> }
      : {}),
    ...(o?.toolArguments === 'string' || o?.toolArguments === 'object' ? { toolArguments: o.toolArguments } : {}),
  };
  const renderer = new ChatTemplateRenderer(tok, options);
  const model = typeof o?.modelName === 'string' ? o.modelName : tok.name;
  const family = findModel(model)?.recommendedRenderers[0];
  const factory = family === undefined ? undefined : BUILT_IN[family];
  if (factory === undefined || family === 'chat_template') return renderer;
  let parser: Renderer;
  try {
    parser = factory(tok);
  } catch {
    return renderer; // the family renderer cannot run on this tokenizer: text-only parsing
  }
  const same = JSON.stringify(parser.getStopSequences()) === JSON.stringify(renderer.getStopSequences());
  return same ? new ChatTemplateRenderer(tok, { ...options, parser }) : renderer;
}

function stripOpt(o: RendererOptions | undefined): { stripThinkingFromHistory?: boolean } {
  const strip = boolOpt(o, 'stripThinkingFromHistory');
  return strip === undefined ? {} : { stripThinkingFromHistory: strip };
}

/** Qwen3.5 / 3.8 options: `preserveThinking` (or `stripThinkingFromHistory`, its negation) and `argumentStyle`. */
function qwen35Opts(base: Qwen35RendererOptions, o: RendererOptions | undefined): Qwen35RendererOptions {
  const strip = boolOpt(o, 'stripThinkingFromHistory');
  const preserve = boolOpt(o, 'preserveThinking') ?? (strip === undefined ? undefined : !strip);
  const style = o?.argumentStyle === 'python' || o?.argumentStyle === 'json' ? o.argumentStyle : undefined;
  return {
    ...base,
    ...(preserve === undefined ? {} : { preserveThinking: preserve }),
    ...(style === undefined ? {} : { argumentStyle: style }),
  };
}

function qwenOpts(mode: 'thinking' | 'disable_thinking', o: RendererOptions | undefined) {
  const strip = boolOpt(o, 'stripThinkingFromHistory');
  return { mode, ...(strip === undefined ? {} : { stripThinkingFromHistory: strip }) };
}

function deepseekOpts(thinking: boolean, o: RendererOptions | undefined) {
  const strip = boolOpt(o, 'stripThinkingFromHistory');
  const sysAsUser = boolOpt(o, 'systemRoleAsUser');
  return {
    thinking,
    ...(strip === undefined ? {} : { stripThinkingFromHistory: strip }),
    ...(sysAsUser === undefined ? {} : { systemRoleAsUser: sysAsUser }),
  };
}

/** Kimi renderers read `stripThinkingFromHistory` (false keeps every message's reasoning). */
function kimiOpts(base: KimiRendererOptions, o: RendererOptions | undefined): KimiRendererOptions {
  const strip = boolOpt(o, 'stripThinkingFromHistory');
  return { ...base, ...(strip === undefined ? {} : { stripThinkingFromHistory: strip }) };
}

const custom = new Map<string, RendererFactory>();

/** Names of the renderers that ship with this package. */
export const BUILT_IN_RENDERER_NAMES: readonly string[] = Object.freeze(Object.keys(BUILT_IN));

/**
 * Register a renderer under `name`. Throws a ConfigError when the name is built in or already registered, unless
 * `options.override` is true (then a built-in name is shadowed by the custom factory).
 */
export function registerRenderer(name: string, factory: RendererFactory, options: { override?: boolean } = {}): void {
  if (!/^[A-Za-z0-9_.:/-]+$/.test(name)) {
    throw new ConfigError(`renderer name "${name}" may only hold letters, digits and _ . : / -`, {
      key: 'renderer_name',
    });
  }
  if (options.override !== true && (name in BUILT_IN || custom.has(name))) {
    throw new ConfigError(`a renderer named "${name}" is already registered; pass { override: true } to replace it`, {
      key: 'renderer_name',
    });
  }
  custom.set(name, factory);
}

/** Remove a registered renderer; returns whether it was registered. Built-in renderers cannot be removed. */
export function unregisterRenderer(name: string): boolean {
  return custom.delete(name);
}

/** Whether `name` resolves to a renderer (built in or registered). */
export function isRendererRegistered(name: string): boolean {
  return custom.has(name) || name in BUILT_IN;
}

/** Every renderer name, built-in ones first, then registered ones in registration order. */
export function getRegisteredRendererNames(): string[] {
  return [...Object.keys(BUILT_IN), ...[...custom.keys()].filter((n) => !(n in BUILT_IN))];
}

/** The renderer `name` for `tokenizer`; throws a ConfigError listing the known names when it is unknown. */
export function getRenderer(name: string, tokenizer: Tokenizer, options?: RendererOptions): Renderer {
  const factory = custom.get(name) ?? BUILT_IN[name];
  if (factory === undefined) {
    throw new ConfigError(
      `unknown renderer "${name}". Known renderers: ${getRegisteredRendererNames().join(', ')}. ` +
        'A renderer package registers its name when imported (e.g. import "cookbook-renderer-chatml").',
      { key: 'renderer_name' },
    );
  }
  return factory(tokenizer, options);
}
