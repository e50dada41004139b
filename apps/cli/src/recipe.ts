/** What a recipe is to the CLI: a name, a config schema, and a function that runs it. */
import type { z } from 'zod';

/** A runnable recipe. */
export interface Recipe<S extends z.ZodType = z.ZodType> {
  name: string;
  /** One line shown by `cookbook --help`. */
  description: string;
  schema: S;
  run(config: z.infer<S>, io: RecipeIO): Promise<void>;
}

/** Where a recipe prints. */
export interface RecipeIO {
  out: (text: string) => void;
  err: (text: string) => void;
}
