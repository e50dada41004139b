/** The `max_turns` setting shared by the multi-turn message games (guess_number, twenty_questions): one declaration. */
import { z } from 'zod';

export const maxTurnsField = z
  .number()
  .int()
  .positive()
  .nullable()
  .default(null)
  .describe('guess_number guesses / twenty_questions questions; null = 2 for guess_number, 4 for twenty_questions');
