/**
 * The GEM games and their registry specs: every `game:*` id of GEM's registry for the games ported here, with
 * GEM's registered parameters as defaults. `null` parameters select a random variant (redrawn at every reset).
 */
import type { EnvFactory, EnvOptions } from '../core/registry.js';
import { GuessTheNumber } from './guess-the-number.js';

export { GuessTheNumber, GuessTheNumberOptions } from './guess-the-number.js';
export { guessTheNumberPlayer } from './players.js';

/** One registrable game id. */
export interface GameSpec {
  id: string;
  factory: EnvFactory;
  defaults: EnvOptions;
}

export const GAME_SPECS: GameSpec[] = [
  {
    id: 'game:GuessTheNumber-v0-hard',
    factory: (o) => new GuessTheNumber(o),
    defaults: { minNumber: 1, maxNumber: 50, maxTurns: 7 },
  },
  {
    id: 'game:GuessTheNumber-v0-easy',
    factory: (o) => new GuessTheNumber(o),
    defaults: { minNumber: 1, maxNumber: 10, maxTurns: 4 },
  },
  {
    id: 'game:GuessTheNumber-v0-random',
    factory: (o) => new GuessTheNumber(o),
    defaults: { minNumber: null, maxNumber: null },
  },
];
