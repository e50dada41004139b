/**
 * The GEM games and their registry specs: every `game:*` id of GEM's registry for the twelve games ported here,
 * with GEM's registered parameters as defaults. Options are camelCase (snake_case also accepted); `null` size
 * parameters select a random variant (redrawn at every reset). Each game also has a scripted player
 * (`GAME_PLAYERS`, `gamePlayer(envId)`) for warm starts and demonstrations.
 */
import type { EnvFactory, EnvOptions } from '../core/registry.js';
import { Crosswords } from './crosswords.js';
import { FifteenPuzzle } from './fifteen-puzzle.js';
import { Game2048 } from './game-2048.js';
import { GuessTheNumber } from './guess-the-number.js';
import { Hangman } from './hangman.js';
import { Mastermind } from './mastermind.js';
import { Minesweeper } from './minesweeper.js';
import { Sokoban } from './sokoban.js';
import { Sudoku } from './sudoku.js';
import { TowerOfHanoi } from './tower-of-hanoi.js';
import { WikiGame } from './wiki-game.js';
import { WordSearch } from './word-search.js';
import { Wordle } from './wordle.js';

export { Crosswords, CrosswordsOptions } from './crosswords.js';
export { type FifteenBoard, FifteenPuzzle, FifteenPuzzleOptions } from './fifteen-puzzle.js';
export { Game2048, Game2048Options, slide2048 } from './game-2048.js';
export { GuessTheNumber, GuessTheNumberOptions } from './guess-the-number.js';
export { Hangman, HangmanOptions } from './hangman.js';
export {
  downloadGemCrosswordBank,
  GEM_CROSSWORD_BANK_URL,
  MAX_CROSSWORD_BANK_BYTES,
  parseCrosswordBank,
  readCrosswordBank,
} from './internal/crossword-bank.js';
export {
  MediaWikiBackend,
  type WikiBackend,
  WikiBackendError,
  type WikiPage,
} from './internal/wiki-backend.js';
export { Mastermind, MastermindOptions, mastermindPegs } from './mastermind.js';
export { Minesweeper, MinesweeperOptions } from './minesweeper.js';
export {
  crosswordsPlayer,
  fifteenPuzzlePlayer,
  GAME_PLAYERS,
  type GamePlayer,
  game2048Player,
  gamePlayer,
  guessTheNumberPlayer,
  hangmanPlayer,
  mastermindPlayer,
  minesweeperPlayer,
  sokobanPlayer,
  sudokuPlayer,
  towerOfHanoiPlayer,
  wordlePlayer,
  wordSearchPlayer,
} from './players.js';
export { Sokoban, SokobanOptions } from './sokoban.js';
export { Sudoku, SudokuOptions } from './sudoku.js';
export { TowerOfHanoi, TowerOfHanoiOptions } from './tower-of-hanoi.js';
export { extractLastBoxed, WikiGame, WikiGameOptions, WikiGameReward } from './wiki-game.js';
export { WordSearch, WordSearchOptions } from './word-search.js';
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
  { id: 'game:FifteenPuzzle-v0-easy', factory: (o) => new FifteenPuzzle(o), defaults: { numRows: 2, maxTurns: 10 } },
  { id: 'game:FifteenPuzzle-v0-hard', factory: (o) => new FifteenPuzzle(o), defaults: { numRows: 4, maxTurns: 50 } },
  // GEM registers this id but its constructor crashes on the unset size; here it works (size redrawn each reset).
  {
    id: 'game:FifteenPuzzle-v0-random',
    factory: (o) => new FifteenPuzzle(o),
    defaults: { numRows: null, maxTurns: null },
  },
  { id: 'game:Game2048-v0-easy', factory: (o) => new Game2048(o), defaults: { targetTile: 64, maxTurns: 50 } },
  { id: 'game:Game2048-v0-hard', factory: (o) => new Game2048(o), defaults: { targetTile: 512, maxTurns: 50 } },
  {
    id: 'game:Game2048-v0-extreme-hard',
    factory: (o) => new Game2048(o),
    defaults: { targetTile: 2048, maxTurns: 100 },
  },
  { id: 'game:Game2048-v0-random', factory: (o) => new Game2048(o), defaults: { targetTile: null, maxTurns: null } },
  {
    id: 'game:Minesweeper-v0-easy',
    factory: (o) => new Minesweeper(o),
    defaults: { rows: 5, cols: 5, numMines: 5, maxTurns: 25 },
  },
  {
    id: 'game:Minesweeper-v0-hard',
    factory: (o) => new Minesweeper(o),
    defaults: { rows: 8, cols: 8, numMines: 12, maxTurns: 64 },
  },
  {
    id: 'game:Minesweeper-v0-random',
    factory: (o) => new Minesweeper(o),
    defaults: { rows: null, cols: null, numMines: null, maxTurns: null },
  },
  { id: 'game:Sudoku-v0-easy', factory: (o) => new Sudoku(o), defaults: { scale: 4, clues: 10, maxTurns: 15 } },
  { id: 'game:Sudoku-v0-hard', factory: (o) => new Sudoku(o), defaults: { scale: 9, clues: 50, maxTurns: 50 } },
  {
    id: 'game:Sudoku-v0-random',
    factory: (o) => new Sudoku(o),
    defaults: { scale: null, clues: null, maxTurns: null },
  },
  {
    id: 'game:Crosswords-v0-easy',
    factory: (o) => new Crosswords(o),
    defaults: { numWords: 3, maxTurns: 30, hardcore: false },
  },
  {
    id: 'game:Crosswords-v0-hard',
    factory: (o) => new Crosswords(o),
    defaults: { numWords: 3, maxTurns: 40, hardcore: true },
  },
  {
    id: 'game:Crosswords-v0-random',
    factory: (o) => new Crosswords(o),
    defaults: { numWords: null, maxTurns: null, hardcore: null },
  },
  {
    id: 'game:WordSearch-v0-easy',
    factory: (o) => new WordSearch(o),
    defaults: { numWords: 5, maxTurns: 20, hardcore: false },
  },
  {
    id: 'game:WordSearch-v0-hard',
    factory: (o) => new WordSearch(o),
    defaults: { numWords: 5, maxTurns: 20, hardcore: true },
  },
  {
    id: 'game:WordSearch-v0-random',
    factory: (o) => new WordSearch(o),
    defaults: { numWords: null, maxTurns: null, hardcore: null },
  },
  {
    id: 'game:Sokoban-v0-easy',
    factory: (o) => new Sokoban(o),
    defaults: { dimRoom: [6, 6], numBoxes: 2, maxTurns: 20 },
  },
  {
    id: 'game:Sokoban-v0-hard',
    factory: (o) => new Sokoban(o),
    defaults: { dimRoom: [8, 8], numBoxes: 4, maxTurns: 50 },
  },
  {
    id: 'game:Sokoban-v0-random',
    factory: (o) => new Sokoban(o),
    defaults: { dimRoom: null, numBoxes: null, maxTurns: null },
  },
];

/** Games that need the network (GEM's WikiGame reads live Wikipedia); registered like the others, kept apart so the
 * offline test suites that play every game id do not reach for the network. */
export const ONLINE_GAME_SPECS: GameSpec[] = [
  { id: 'game:WikiGame-v0-easy', factory: (o) => new WikiGame(o), defaults: { maxTurns: 30 } },
  { id: 'game:WikiGame-v0-hard', factory: (o) => new WikiGame(o), defaults: { maxTurns: 15 } },
];
