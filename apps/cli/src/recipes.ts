/** The recipes this CLI knows, in the order `--help` lists them. */
import type { Recipe } from './recipe.js';
import { cache } from './recipes/cache.js';
import { chat } from './recipes/chat.js';
import { checkpoint } from './recipes/checkpoint.js';
import { codeRl } from './recipes/code-rl.js';
import { dashboard } from './recipes/dashboard.js';
import { dpo } from './recipes/dpo.js';
import { evalRecipe } from './recipes/eval.js';
import { evalCompare } from './recipes/eval-compare.js';
import { gem } from './recipes/gem.js';
import { mathRl } from './recipes/math-rl.js';
import { multiplayer } from './recipes/multiplayer.js';
import { offPolicyDistillation } from './recipes/off-policy-distillation.js';
import { onPolicyDistillation } from './recipes/on-policy-distillation.js';
import { promptDistillation } from './recipes/prompt-distillation.js';
import { rlBasic } from './recipes/rl-basic.js';
import { rlLoop } from './recipes/rl-loop.js';
import { rlhfPipeline } from './recipes/rlhf-pipeline.js';
import { rubric } from './recipes/rubric.js';
import { sdft } from './recipes/sdft.js';
import { searchTool } from './recipes/search-tool.js';
import { serve } from './recipes/serve.js';
import { shorter } from './recipes/shorter.js';
import { slBasic } from './recipes/sl-basic.js';
import { slLoop } from './recipes/sl-loop.js';
import { toolUse } from './recipes/tool-use.js';
import { trueThinkingScore } from './recipes/true-thinking-score.js';
import { vlmClassifier } from './recipes/vlm-classifier.js';

export const recipes: Recipe[] = [
  slBasic,
  slLoop,
  promptDistillation,
  rlBasic,
  rlLoop,
  mathRl,
  multiplayer,
  codeRl,
  toolUse,
  searchTool,
  gem,
  evalRecipe,
  evalCompare,
  trueThinkingScore,
  serve,
  dashboard,
  chat,
  cache,
  checkpoint,
  dpo,
  shorter,
  rubric,
  rlhfPipeline,
  onPolicyDistillation,
  offPolicyDistillation,
  sdft,
  vlmClassifier,
];
