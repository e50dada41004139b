/**
 * Wrapper names (GEM `WRAPPER_FACTORY` / `get_wrapper_fns`): a comma list such as
 * `python_tool_no_int_reward,concat_chat,episode_tracking`, applied in order (first = innermost). Intended order: a
 * tool wrapper, then one observation wrapper, then `episode_tracking`.
 */
import { ConfigError, closestMatch } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import type { Bm25Index } from '@cookbook/tools';
import type { Env } from '../core/env.js';
import { EpisodeTrackingWrapper, ObservationWrapper } from './observation.js';
import { PythonCodeTool, type PythonCodeToolOptions, ToolEnvWrapper } from './python-tool.js';
import { GemSearchTool, searchCollectionIndex } from './search-tool.js';

/** Wraps one env. */
export type WrapperFn = (env: Env) => Env;

/** What some wrappers need. */
export interface WrapperDeps {
  /** The chat format of `concat_chat` / `concat_chat_on_reset`. */
  renderer?: Renderer;
  /** Limits of the Python tool (timeout, memory). */
  python?: PythonCodeToolOptions;
  /**
   * The documents of `search_tool` / `search_tool_no_int_reward`: an index of `@cookbook/tools`, or the path of a JSONL
   * collection (`{"id", "title"?, "text"}` per line) indexed once. GEM asks a retrieval server at `$SEARCH_URL`.
   */
  search?: { index?: Bm25Index; collectionPath?: string; topk?: number };
}

const python = (deps: WrapperDeps, rewards: [number, number], lastLineError = false): WrapperFn => {
  const tool = new PythonCodeTool({ timeoutSeconds: 5, ...deps.python, lastLineError });
  return (env) =>
    new ToolEnvWrapper(env, { tools: [tool], toolReward: rewards[0], toolSuccessReward: rewards[1], maxToolUses: 5 });
};

const search = (deps: WrapperDeps, toolReward: number): WrapperFn => {
  const index =
    deps.search?.index ??
    (deps.search?.collectionPath === undefined ? undefined : searchCollectionIndex(deps.search.collectionPath));
  if (index === undefined) {
    throw new ConfigError(
      'the search tool wrappers search a local document collection: set search_collection=<file.jsonl> (one {"id", "title"?, "text"} per line)',
      { key: 'search_collection' },
    );
  }
  const tool = new GemSearchTool(index, { topk: deps.search?.topk ?? 3 });
  return (env) => new ToolEnvWrapper(env, { tools: [tool], toolReward, toolSuccessReward: 0, maxToolUses: 5 });
};

/** Every wrapper name and how it is built. */
export const WRAPPER_FACTORY: Readonly<Record<string, (deps: WrapperDeps) => WrapperFn>> = {
  python_tool: (deps) => python(deps, [0.05, 0.25]),
  python_tool_no_int_reward: (deps) => python(deps, [0, 0]),
  python_tool_no_int_reward_last_line_error: (deps) => python(deps, [0, 0], true),
  search_tool: (deps) => search(deps, 0.3),
  search_tool_no_int_reward: (deps) => search(deps, 0),
  concat: () => (env) => new ObservationWrapper(env, { mode: 'concat' }),
  concat_with_action: () => (env) => new ObservationWrapper(env, { mode: 'concat_with_action' }),
  concat_chat: (deps) => (env) => new ObservationWrapper(env, { mode: 'concat_chat', ...rendererOf(deps) }),
  concat_chat_on_reset: (deps) => (env) =>
    new ObservationWrapper(env, { mode: 'concat_chat_on_reset', ...rendererOf(deps) }),
  episode_tracking: () => (env) => new EpisodeTrackingWrapper(env),
};

function rendererOf(deps: WrapperDeps): { renderer?: Renderer } {
  return deps.renderer === undefined ? {} : { renderer: deps.renderer };
}

/**
 * The wrapper functions of a comma list (empty string = none).
 * @throws ConfigError naming an unknown wrapper (and the closest known one), or a missing python3 / renderer.
 */
export function getWrapperFns(names: string, deps: WrapperDeps = {}): WrapperFn[] {
  const list = names
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return list.map((name) => {
    const build = WRAPPER_FACTORY[name];
    if (build === undefined) {
      const hint = closestMatch(name, Object.keys(WRAPPER_FACTORY));
      throw new ConfigError(
        `unknown env wrapper "${name}"${hint ? `; did you mean "${hint}"?` : ''}; known: ${Object.keys(WRAPPER_FACTORY).join(', ')}`,
        { key: 'env_wrappers' },
      );
    }
    if ((name === 'concat_chat' || name === 'concat_chat_on_reset') && deps.renderer === undefined) {
      throw new ConfigError(`env wrapper ${name} needs a renderer (the chat format)`, { key: 'env_wrappers' });
    }
    return build(deps);
  });
}

/** Applies wrapper functions in order. */
export function applyWrappers(env: Env, wrappers: readonly WrapperFn[]): Env {
  let out = env;
  for (const w of wrappers) out = w(out);
  return out;
}
