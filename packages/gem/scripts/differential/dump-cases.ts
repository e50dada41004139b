/**
 * Step 1 of recording the differential fixtures (see `README.md` beside this file): plays nothing, only resets each
 * case's env with its seed here and writes the hidden state it drew (secret, board, mines…) with the case's actions,
 * as JSON on stdout. Step 2 (`record-gem.py`) loads those states into GEM's own Python games, plays the same actions
 * and records what GEM answers.
 *
 * Run: `node --conditions=@cookbook/source --import tsx packages/gem/scripts/differential/dump-cases.ts > cases.json`
 */
import { make } from '../../src/core/registry.js';
import { DIFFERENTIAL_CASES } from './cases.js';

type Loose = Record<string, unknown>;

function hiddenState(game: string, env: Loose): Loose {
  const get = (k: string) => env[k];
  switch (game) {
    case 'GuessTheNumber':
      return {
        min_number: get('minNumber'),
        max_number: get('maxNumber'),
        max_turns: get('maxTurns'),
        game_number: get('target'),
      };
    case 'Mastermind':
      return {
        code_length: get('codeLength'),
        num_numbers: get('numNumbers'),
        max_turns: get('maxTurns'),
        game_code: get('code'),
      };
    case 'Hangman':
      return { word_length: get('wordLength'), max_turns: get('maxTurns'), secret_word: get('secret') };
    case 'Wordle':
      return { word_length: get('wordLength'), max_turns: get('maxTurns'), secret_word: get('secret') };
    case 'Minesweeper':
      return { rows: get('rows'), cols: get('cols'), num_mines: get('numMines'), max_turns: get('maxTurns') };
    case 'Sudoku':
      return { scale: get('scale'), max_turns: get('maxTurns'), board: get('board'), full_grid: get('solution') };
    case 'TowerofHanoi':
      return { num_disks: get('numDisks'), max_turns: get('maxTurns'), board: get('towers') };
    case 'FifteenPuzzle':
      return { max_turns: get('maxTurns'), board: get('board') };
    case 'Game2048':
      return { target_tile: get('targetTile'), max_turns: get('maxTurns'), board: get('board') };
    case 'WordSearch':
      return {
        max_turns: get('maxTurns'),
        game_board: get('board'),
        placed_words: Object.fromEntries(
          [...(get('placedWords') as Map<string, Loose>)].map(([w, p]) => [w, [p.row, p.col, p.direction]]),
        ),
      };
    case 'Sokoban': {
      const [rows, cols] = get('dimRoom') as [number, number];
      const grid = (a: Uint8Array) => Array.from({ length: rows }, (_, r) => [...a.slice(r * cols, (r + 1) * cols)]);
      return {
        dim_room: [rows, cols],
        num_boxes: get('numBoxes'),
        max_turns: get('maxTurns'),
        room_fixed: grid(get('fixed') as Uint8Array),
        room_state: grid(get('state') as Uint8Array),
      };
    }
    case 'Crosswords':
      return {
        max_turns: get('maxTurns'),
        solution: get('solution'),
        board: get('board'),
        clues: Object.fromEntries(get('clues') as Map<string, string>),
        placed_words: Object.fromEntries(
          [...(get('placedWords') as Map<string, Loose>)].map(([w, p]) => [w, [p.row, p.col, p.direction]]),
        ),
      };
    default:
      throw new Error(`no state dump for ${game}`);
  }
}

const out = [];
for (const c of DIFFERENTIAL_CASES) {
  const env = make(c.envId, { seed: c.seed }) as unknown as Loose & {
    reset: (seed: number) => Promise<unknown>;
    step: (a: string) => Promise<unknown>;
  };
  await env.reset(c.seed);
  const game = /^game:(\w+)-v0/.exec(c.envId)![1]!;
  const state = hiddenState(game, env);
  const actions = c.actions(env);
  // Boards that change by chance after a move (2048's new tile, Minesweeper's mines placed at the first reveal) are
  // recorded after each step here, and GEM's game is given the same chance outcome.
  const after: unknown[] = [];
  if (game === 'Game2048' || game === 'Minesweeper') {
    const copy = make(c.envId, { seed: c.seed }) as unknown as Loose & typeof env;
    await copy.reset(c.seed);
    for (const a of actions) {
      await copy.step(a);
      after.push(JSON.parse(JSON.stringify(game === 'Game2048' ? copy.board : copy.grid)));
    }
  }
  out.push({ name: c.name, envId: c.envId, seed: c.seed, game, state, actions, after });
}
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
