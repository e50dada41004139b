/**
 * `cookbook-env-letter-count`: importing this module registers the `letter_count` env with `@cookbook/training`'s env
 * registry (a documented side effect), so `cookbook multiplayer env=letter_count` finds it by name.
 * `registerLetterCountEnv()` does the same explicitly and is idempotent.
 */
import { isEnvRegistered, registerEnv } from '@cookbook/training';
import { letterCountEnv } from './letter-count-env.js';

/** Register the `letter_count` env (no-op when it is already registered). */
export function registerLetterCountEnv(): void {
  if (!isEnvRegistered(letterCountEnv.name)) registerEnv(letterCountEnv);
}

registerLetterCountEnv();

export {
  LetterCountDataset,
  LetterCountGroupBuilder,
  LetterCountMessageEnv,
  letterCountEnv,
  letterCountPrompt,
  WORDS,
} from './letter-count-env.js';
