/** What a recipe is to the CLI: a name, a config schema, and a function that runs it. */
import type { z } from 'zod';

/** A runnable recipe. */
export interface Recipe<S extends z.ZodType = z.ZodType> {
  name: string;
  /** One line shown by `cookbook --help`. */
  description: string;
  schema: S;
  /**
   * Keys that leading arguments without `=` fill, in order (`cookbook checkpoint info tinker://…` is
   * `verb=info path=tinker://…`). Default: none (every argument is key=value).
   */
  positionals?: readonly string[];
  /** Paragraphs printed after the options by `cookbook <recipe> --help` (what runs offline, how to run it for real). */
  notes?: string;
  run(config: z.infer<S>, io: RecipeIO): Promise<void>;
}

/** Where a recipe prints. */
export interface RecipeIO {
  out: (text: string) => void;
  err: (text: string) => void;
}

/**
 * Declares a recipe: `run` is typed by `schema` (its config is `z.infer<S>`), and the result is a plain
 * {@link Recipe}, so recipes with different schemas fit in one list.
 *
 * The one cast: `Recipe<S>` is not assignable to `Recipe` because `run` takes `z.infer<S>`, narrower than what
 * `Recipe['run']` accepts (parameters are contravariant). It is sound here because the CLI only ever calls `run`
 * with `schema.parse(…)` of the same recipe, i.e. with a `z.infer<S>`.
 */
export function defineRecipe<S extends z.ZodType>(recipe: Recipe<S>): Recipe {
  return recipe as unknown as Recipe;
}
