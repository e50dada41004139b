/** The recipes this CLI knows, in the order `--help` lists them. */
import type { Recipe } from './recipe.js';
import { cache } from './recipes/cache.js';
import { evalRecipe } from './recipes/eval.js';
import { evalCompare } from './recipes/eval-compare.js';
import { mathRl } from './recipes/math-rl.js';
import { multiplayer } from './recipes/multiplayer.js';
import { offPolicyDistillation } from './recipes/off-policy-distillation.js';
import { onPolicyDistillation } from './recipes/on-policy-distillation.js';
import { promptDistillation } from './recipes/prompt-distillation.js';
import { rlBasic } from './recipes/rl-basic.js';
import { rlLoop } from './recipes/rl-loop.js';
import { serve } from './recipes/serve.js';
import { slBasic } from './recipes/sl-basic.js';
import { slLoop } from './recipes/sl-loop.js';

export const recipes: Recipe[] = [
  slBasic,
  slLoop,
  promptDistillation,
  rlBasic,
  rlLoop,
  mathRl,
  multiplayer,
  evalRecipe,
  evalCompare,
  serve,
  cache,
  onPolicyDistillation,
  offPolicyDistillation,
];
