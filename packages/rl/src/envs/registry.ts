/**
 * The environments this package registers with `@cookbook/training`'s env registry when it is imported (recipes pick
 * them by name: `multiplayer env=tic_tac_toe`). A new built-in env is one file (its classes and its `EnvSpec`) and one
 * entry here.
 */
import { type EnvSpec, registerEnv } from '@cookbook/training';
import { guessNumberEnv } from './guess-number-env.js';
import { ticTacToeEnv } from './tic-tac-toe-env.js';
import { twentyQuestionsEnv } from './twenty-questions-env.js';

/** The built-in multi-turn games, in the order `--help` lists them. */
export const BUILT_IN_ENVS: readonly EnvSpec[] = [guessNumberEnv, twentyQuestionsEnv, ticTacToeEnv];

for (const spec of BUILT_IN_ENVS) registerEnv(spec);
