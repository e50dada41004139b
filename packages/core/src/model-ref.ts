/**
 * A model reference: what a model name stands for, answered once from the model catalog. Every question a package
 * asks of a model name — is it one of the embedded engine's built-ins, a Hugging Face Hub repository, a folder, a model
 * of the hosted service; which repository; where its tokenizer comes from; which renderer to use; which learning rate
 * a loop defaults to — is answered here ({@link resolveModelRef}) rather than by matching the name where it is used.
 *
 * The answers read the name only (no file system): a name that is both a folder on disk and shaped like a repository
 * id (`models/qwen`) reads as a repository here, so a caller that can see the disk looks for the folder first.
 */
import { ConfigError } from './errors.js';
import { getLr } from './hyperparams.js';
import {
  baseModelName,
  CHAT_TEMPLATE_RENDERER_NAME,
  findModel,
  type ModelEntry,
  type ModelFamily,
  type TokenizerSource,
} from './model-catalog.js';

/**
 * What a model name refers to: `built-in` (the embedded engine's `local/*` models), `hosted` (a catalogued model of the
 * hosted Tinker service), `hub` (a Hugging Face Hub repository the hosted service does not serve: a catalogued open
 * checkpoint, or any uncatalogued `org/name`), `folder` (anything else: a path to a folder holding a checkpoint).
 */
export type ModelKind = 'built-in' | 'hosted' | 'hub' | 'folder';

/**
 * The loop kinds whose default learning rates differ: `supervised` (SFT, DPO, distillation: the model's rule as is)
 * and `rl` (a tenth of it, as upstream's RL recipes use).
 */
export type LoopKind = 'supervised' | 'rl';

/**
 * Default learning rates of the built-in `local/*` stand-ins, which the hidden-size rule does not cover (it is
 * calibrated on real shapes). RL's was measured on `rl_basic` (seed 0, pretrained stand-in): 3e-3 collapsed the
 * warm-started policy (reward 0.69 → 0.38, entropy → 0.01); 1e-3 climbed (0.67 → 0.83); 3e-4 climbed less
 * (0.71 → 0.77).
 */
export const BUILT_IN_LEARNING_RATES: Readonly<Record<LoopKind, number>> = Object.freeze({
  supervised: 1e-2,
  rl: 1e-3,
});

/** What the rule of a catalogued model is divided by, per loop kind (upstream's recipes: 1 for SFT, 10 for RL). */
const LR_DIVISORS: Readonly<Record<LoopKind, number>> = { supervised: 1, rl: 10 };

/** What a model name stands for: see {@link resolveModelRef}. */
export interface ModelRef {
  /** The name as given (with any `:suffix`). */
  readonly name: string;
  /** The name without its `:suffix`. */
  readonly baseName: string;
  readonly kind: ModelKind;
  /** The Hugging Face Hub repository (`org/name`) of a `hosted` or `hub` model; undefined for the others. */
  readonly repoId: string | undefined;
  /** The catalog's entry, when the model is catalogued. */
  readonly entry: ModelEntry | undefined;
  /** The model's family: the catalog's, or the one its name alone says (an uncatalogued `moonshotai/Kimi-K2*`). */
  readonly family: ModelFamily | undefined;
  /** Where its tokenizer comes from (the catalog's); undefined when uncatalogued (a folder's own files, or the Hub). */
  readonly tokenizer: TokenizerSource | undefined;
  /**
   * The renderers designed for the model, best first: the catalog's recommendations, else the model's own chat
   * template (`chat_template`); undefined when uncatalogued (a folder's template decides).
   */
  readonly recommendedRenderers: readonly string[] | undefined;
  /** The renderer to use when none is named: the first of {@link ModelRef.recommendedRenderers}. */
  readonly recommendedRenderer: string | undefined;
}

/** Hugging Face repository-id syntax: `org/name`. */
const REPO_ID = /^[\w.-]+\/[\w.-]+$/;

/** Families recognised by name alone, for repositories the catalog does not list (checkpoints of a known line). */
const FAMILY_BY_NAME: readonly { pattern: RegExp; family: ModelFamily }[] = [
  { pattern: /^moonshotai\/Kimi-K2[\w.-]*$/, family: 'kimi_k2' },
];

/** Whether `name` has Hugging Face repository-id syntax (`org/name`; a model, dataset or space). */
export function isRepoId(name: string): boolean {
  return REPO_ID.test(name);
}

/** Whether `name` names one of the embedded engine's built-in models (the `local/*` namespace). */
export function isBuiltInModelName(name: string): boolean {
  return name.startsWith('local/');
}

/**
 * Whether a name, as given, could be a Hugging Face Hub model repository (`org/name`, no `:suffix`); the built-in
 * `local/*` models are not.
 */
export function isHubRepoId(name: string): boolean {
  return isRepoId(name) && !isBuiltInModelName(name);
}

function modelKind(baseName: string, entry: ModelEntry | undefined): ModelKind {
  if (isBuiltInModelName(baseName)) return 'built-in';
  if (entry?.hosted === true) return 'hosted';
  if (entry !== undefined || isRepoId(baseName)) return 'hub';
  return 'folder';
}

/** The one answer to "what is this model name?": kind, repository, family, tokenizer source, renderer. */
export function resolveModelRef(modelName: string): ModelRef {
  const baseName = baseModelName(modelName);
  const entry = findModel(baseName);
  const kind = modelKind(baseName, entry);
  const family = entry?.family ?? FAMILY_BY_NAME.find((f) => f.pattern.test(baseName))?.family;
  const listed = entry?.recommendedRenderers;
  const recommended =
    listed === undefined ? undefined : Object.freeze(listed.length > 0 ? [...listed] : [CHAT_TEMPLATE_RENDERER_NAME]);
  return Object.freeze({
    name: modelName,
    baseName,
    kind,
    repoId: kind === 'hosted' || kind === 'hub' ? baseName : undefined,
    entry,
    family,
    tokenizer: entry?.tokenizer,
    recommendedRenderers: recommended,
    recommendedRenderer: recommended?.[0],
  });
}

/**
 * The learning rate a loop of kind `loop` defaults to for the model: {@link BUILT_IN_LEARNING_RATES} for a built-in
 * `local/*` model, else the catalog's rule (upstream `get_lr`) divided per loop kind (1 for supervised, 10 for RL).
 * @throws ConfigError naming `learning_rate` for a model whose rule is unknown or uncalibrated.
 */
export function defaultLearningRate(model: ModelRef, loop: LoopKind): number {
  if (model.entry?.local !== undefined) return BUILT_IN_LEARNING_RATES[loop];
  try {
    return getLr(model.name) / LR_DIVISORS[loop];
  } catch (error) {
    throw new ConfigError(
      `no default learning rate for ${model.name} (${error instanceof Error ? error.message : String(error)}); pass learning_rate=...`,
      { key: 'learning_rate' },
    );
  }
}

/**
 * The learning rate a run uses: `learningRate` when given, else the model's default for the loop kind
 * ({@link defaultLearningRate}).
 * @throws ConfigError naming `learning_rate` when `learningRate` is null and the model has no rule.
 */
export function resolveLearningRate(modelName: string, learningRate: number | null, loop: LoopKind): number {
  return learningRate ?? defaultLearningRate(resolveModelRef(modelName), loop);
}
