export { runCli, usage } from './cli.js';
export type { Recipe, RecipeIO } from './recipe.js';
export { recipes } from './recipes.js';
