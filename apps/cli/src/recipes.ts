/** The recipes this CLI knows, in the order `--help` lists them. */
import type { Recipe } from './recipe.js';

export const recipes: Recipe[] = [];
