/**
 * The GEM games and their registry specs: every `game:*` id of GEM's registry for the games ported here, with
 * GEM's registered parameters as defaults. `null` parameters select a random variant (redrawn at every reset).
 */
import type { EnvFactory, EnvOptions } from '../core/registry.js';
import { GuessTheNumber } from './guess-the-number.js';
import { Hangman } from './hangman.js';
import { Mastermind } from './mastermind.js';
import { TowerOfHanoi } from './tower-of-hanoi.js';
import { Wordle } from './wordle.js';

export { GuessTheNumber, GuessTheNumberOptions } from './guess-the-number.js';
export { Hangman, HangmanOptions } from './hangman.js';
export { Mastermind, MastermindOptions, mastermindPegs } from './mastermind.js';
export { guessTheNumberPlayer, towerOfHanoiPlayer } from './players.js';
export { TowerOfHanoi, TowerOfHanoiOptions } from './tower-of-hanoi.js';
export { Wordle, WordleOptions, wordleFeedback } from './wordle.js';

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
  {
    id: 'game:Mastermind-v0-hard',
    factory: (o) => new Mastermind(o),
    defaults: { codeLength: 4, numNumbers: 8, maxTurns: 30, duplicateNumbers: false },
  },
  {
    id: 'game:Mastermind-v0-easy',
    factory: (o) => new Mastermind(o),
    defaults: { codeLength: 2, numNumbers: 6, maxTurns: 10, duplicateNumbers: false },
  },
  {
    id: 'game:Mastermind-v0-random',
    factory: (o) => new Mastermind(o),
    defaults: { codeLength: null, numNumbers: null, duplicateNumbers: false },
  },
  { id: 'game:Wordle-v0-hard', factory: (o) => new Wordle(o), defaults: { wordLength: 5, maxTurns: 25 } },
  { id: 'game:Wordle-v0-easy', factory: (o) => new Wordle(o), defaults: { wordLength: 3, maxTurns: 15 } },
  { id: 'game:Wordle-v0-random', factory: (o) => new Wordle(o), defaults: { wordLength: null } },
  {
    id: 'game:Hangman-v0-easy',
    factory: (o) => new Hangman(o),
    defaults: { wordLength: 3, maxTurns: 10, hardcore: false },
  },
  {
    id: 'game:Hangman-v0-hard',
    factory: (o) => new Hangman(o),
    defaults: { wordLength: 7, maxTurns: 20, hardcore: false },
  },
  { id: 'game:Hangman-v0-random', factory: (o) => new Hangman(o), defaults: { wordLength: null, hardcore: false } },
  { id: 'game:TowerofHanoi-v0-easy', factory: (o) => new TowerOfHanoi(o), defaults: { numDisks: 3, maxTurns: 10 } },
  { id: 'game:TowerofHanoi-v0-hard', factory: (o) => new TowerOfHanoi(o), defaults: { numDisks: 5, maxTurns: 35 } },
  {
    id: 'game:TowerofHanoi-v0-random',
    factory: (o) => new TowerOfHanoi(o),
    defaults: { numDisks: null, maxTurns: null },
  },
];
