/**
 * Tic-tac-toe self-play (upstream `recipes/multiplayer_rl/text_arena` with TicTacToe-v0): two policies (two envs
 * of one group) share a game through a coordinator; each waits for its turn. Moves are written `[k]`, k = 1…9.
 * Rewards at the end: win 1, loss −1, draw 0; an illegal or unreadable move ends the game with −2 for the
 * offender (0 for the other player). With `opponent: 'random'` the second seat is a seeded random legal mover
 * (useful for evaluation against a fixed opponent).
 */
import { getTextContent, type Message, ModelInput, Mulberry32Rng, TrainingError } from '@cookbook/core';
import { ConversationFormatter, logFormatter, logText } from '@cookbook/logging';
import type { Renderer } from '@cookbook/renderers';
import { safeParseResponse } from '@cookbook/renderers';
import {
  type Action,
  defineEnv,
  type Env,
  type EnvGroupBuilder,
  type InitialObservation,
  type RLDataset,
  type StepResult,
  type TruncationReason,
  truncationMetrics,
} from '@cookbook/training';
import { z } from 'zod';

/** A player mark. */
export type Player = 'X' | 'O';
/** A board cell. */
export type Cell = Player | null;

const LINES = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6],
] as const;

/** Reward for an illegal move. */
export const ILLEGAL_MOVE_REWARD = -2;

/** The winner of a board, if any. */
export function winnerOf(cells: readonly Cell[]): Player | null {
  for (const [a, b, c] of LINES) {
    const v = cells[a];
    if (v != null && v === cells[b] && v === cells[c]) return v;
  }
  return null;
}

/** The board as text, empty cells shown by their move number. */
export function renderBoard(cells: readonly Cell[]): string {
  const row = (r: number) => [0, 1, 2].map((c) => cells[r * 3 + c] ?? String(r * 3 + c + 1)).join(' | ');
  return [row(0), '---------', row(1), '---------', row(2)].join('\n');
}

/** The cell index (0–8) of the last `[k]` in `text`, or undefined. */
export function parseMove(text: string): number | undefined {
  const matches = [...text.matchAll(/\[\s*([1-9])\s*\]/g)];
  const last = matches[matches.length - 1];
  return last === undefined ? undefined : Number(last[1]) - 1;
}

/** How a game ended. */
export interface GameOutcome {
  winner?: Player;
  illegalBy?: Player;
  draw?: boolean;
  /** A rollout limit cut one seat's episode, which ends the game for both (no winner, reward 0). */
  truncated?: TruncationReason;
}

/** The shared game state of two players; each waits for its turn. */
export class TicTacToeGame {
  readonly cells: Cell[] = new Array<Cell>(9).fill(null);
  toMove: Player = 'X';
  outcome: GameOutcome | undefined;
  lastMove: number | undefined;
  private waiters: (() => void)[] = [];
  private readonly randomOpponent: { player: Player; rng: Mulberry32Rng } | undefined;

  constructor(options: { randomOpponent?: { player: Player; seed: number } } = {}) {
    const r = options.randomOpponent;
    this.randomOpponent = r === undefined ? undefined : { player: r.player, rng: new Mulberry32Rng(r.seed) };
    this.maybeRandomMove();
  }

  get over(): boolean {
    return this.outcome !== undefined;
  }

  /** Legal cells (0–8). */
  legalMoves(): number[] {
    return this.cells.flatMap((c, i) => (c === null ? [i] : []));
  }

  /** Resolves when it is `player`'s turn or the game is over. */
  async waitForTurn(player: Player): Promise<void> {
    while (!this.over && this.toMove !== player) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Play `cell` (undefined = unreadable move) for `player`. */
  play(player: Player, cell: number | undefined): void {
    if (this.over) throw new TrainingError('the game is over');
    if (player !== this.toMove) throw new TrainingError(`it is ${this.toMove}'s turn, not ${player}'s`);
    if (cell === undefined || this.cells[cell] !== null) {
      this.outcome = { illegalBy: player };
    } else {
      this.cells[cell] = player;
      this.lastMove = cell;
      const w = winnerOf(this.cells);
      if (w !== null) this.outcome = { winner: w };
      else if (this.legalMoves().length === 0) this.outcome = { draw: true };
      else this.toMove = player === 'X' ? 'O' : 'X';
    }
    this.maybeRandomMove();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** End the game unfinished (a rollout limit cut a seat): the other seat's wait ends; both get reward 0. */
  truncate(reason: TruncationReason): void {
    if (this.over) return;
    this.outcome = { truncated: reason };
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private maybeRandomMove(): void {
    const r = this.randomOpponent;
    if (r === undefined || this.over || this.toMove !== r.player) return;
    this.play(r.player, r.rng.choice(this.legalMoves()));
  }

  /** The final reward of `player`. */
  rewardFor(player: Player): number {
    const o = this.outcome;
    if (o === undefined) return 0;
    if (o.illegalBy !== undefined) return o.illegalBy === player ? ILLEGAL_MOVE_REWARD : 0;
    if (o.winner !== undefined) return o.winner === player ? 1 : -1;
    return 0;
  }
}

/**
 * What a player sees before each move. `conversation` (default): one growing conversation, the rules on the first
 * turn and then the opponent's last move and the board. `board`: a fresh prompt every turn with the rules, the
 * opponent's last move and the current board only (the game is Markov in its board, and the prompt stays short: the
 * offline default, which a tiny model can read).
 */
export type TicTacToeObservation = 'conversation' | 'board';

const rulesLine = (player: Player) =>
  `We are playing tic-tac-toe. You are ${player}. Reply with the number of an empty cell in brackets, e.g. [5].\n`;
const lastMoveLine = (game: Pick<TicTacToeGame, 'lastMove'>) =>
  game.lastMove === undefined ? '' : `Your opponent played [${game.lastMove + 1}].\n`;

/** What `player` is told before a move: the rules on its first turn, else the opponent's last move; then the board. */
export function ticTacToePrompt(
  player: Player,
  game: Pick<TicTacToeGame, 'cells' | 'lastMove'>,
  first: boolean,
): string {
  return `${first ? rulesLine(player) : lastMoveLine(game)}${renderBoard(game.cells)}\nYour move:`;
}

/**
 * The `board` observation's prompt: the rules, the opponent's last move (if any), the current board and the available
 * moves (as TextArena's TicTacToe lists them), the last right before the reply.
 */
export function ticTacToeBoardPrompt(player: Player, game: Pick<TicTacToeGame, 'cells' | 'lastMove'>): string {
  const available = game.cells.flatMap((c, i) => (c === null ? [`[${i + 1}]`] : [])).join(' ');
  return `${rulesLine(player)}${lastMoveLine(game)}${renderBoard(game.cells)}\nAvailable moves: ${available}\nYour move:`;
}

/**
 * The rule player's move (a cell 0–8): complete its own line if it can, else block the opponent's, else the centre,
 * else a corner, else a side; `rng` breaks ties (default: the first in order).
 */
export function ruleMove(cells: readonly Cell[], player: Player, rng?: Mulberry32Rng): number {
  const other: Player = player === 'X' ? 'O' : 'X';
  const legal = cells.flatMap((c, i) => (c === null ? [i] : []));
  if (legal.length === 0) throw new TrainingError('no legal move: the board is full');
  const completing = (who: Player) =>
    legal.filter((i) => {
      const next = [...cells];
      next[i] = who;
      return winnerOf(next) === who;
    });
  const pick = (xs: number[]) => (rng === undefined ? xs[0]! : rng.choice(xs));
  for (const candidates of [
    completing(player),
    completing(other),
    legal.filter((i) => i === 4),
    legal.filter((i) => i === 0 || i === 2 || i === 6 || i === 8),
    legal,
  ]) {
    if (candidates.length > 0) return pick(candidates);
  }
  return pick(legal);
}

/**
 * One game between two rule players, each making a random legal move instead with probability `epsilon` (so games
 * differ and some are won), seen from both seats: each seat's conversation as {@link TicTacToePlayerEnv} shows it,
 * its moves as `trainable` assistant turns. With `opponent: 'random'` only X's conversation, against a random O.
 */
export function ruleGameConversations(
  seed: number,
  options: { epsilon?: number; opponent?: 'self' | 'random'; observation?: TicTacToeObservation } = {},
): Message[][] {
  const rng = new Mulberry32Rng(seed);
  const epsilon = options.epsilon ?? 0.2;
  const seats: Player[] = options.opponent === 'random' ? ['X'] : ['X', 'O'];
  const game = new TicTacToeGame();
  const messages: Record<Player, Message[]> = { X: [], O: [] };
  // Board observation: every move is a conversation of its own (one prompt, one reply), as the env shows it.
  const turns: Message[][] = [];
  while (!game.over) {
    const player = game.toMove;
    const expert = seats.includes(player);
    const random = !expert || rng.next() < epsilon;
    const cell = random ? rng.choice(game.legalMoves()) : ruleMove(game.cells, player, rng);
    if (expert) {
      const reply: Message = { role: 'assistant', content: `[${cell + 1}]`, trainable: true };
      if (options.observation === 'board') {
        turns.push([{ role: 'user', content: ticTacToeBoardPrompt(player, game), trainable: false }, reply]);
      } else {
        const first = messages[player].length === 0;
        messages[player].push({ role: 'user', content: ticTacToePrompt(player, game, first), trainable: false }, reply);
      }
    }
    game.play(player, cell);
  }
  return options.observation === 'board' ? turns : seats.map((p) => messages[p]);
}

/**
 * One seat of a tic-tac-toe game. With the `conversation` observation it keeps its own conversation, so turns extend
 * each other; with `board` each turn's prompt is the current board alone (the transcript still records every turn).
 */
export class TicTacToePlayerEnv implements Env {
  private readonly messages: Message[] = [];

  constructor(
    readonly game: TicTacToeGame,
    readonly player: Player,
    readonly renderer: Renderer,
    readonly observationMode: TicTacToeObservation = 'conversation',
  ) {}

  private observation(first: boolean): InitialObservation {
    const board = this.observationMode === 'board';
    const content = board
      ? ticTacToeBoardPrompt(this.player, this.game)
      : ticTacToePrompt(this.player, this.game, first);
    const message: Message = { role: 'user', content };
    this.messages.push(message);
    return {
      observation: this.renderer.buildGenerationPrompt(board ? [message] : this.messages),
      stopCondition: this.renderer.getStopSequences(),
    };
  }

  private final(): StepResult {
    const outcome = this.game.outcome ?? {};
    logFormatter(new ConversationFormatter(this.messages));
    const cut = outcome.truncated;
    if (cut !== undefined) logText(`Game truncated: ${cut} (the other seat reached a rollout limit)`);
    return {
      reward: this.game.rewardFor(this.player),
      episodeDone: true,
      nextObservation: ModelInput.empty(),
      nextStopCondition: this.renderer.getStopSequences(),
      metrics: {
        win: outcome.winner === this.player ? 1 : 0,
        loss: outcome.winner !== undefined && outcome.winner !== this.player ? 1 : 0,
        draw: outcome.draw ? 1 : 0,
        illegal_move: outcome.illegalBy === this.player ? 1 : 0,
        ...(cut === undefined ? {} : truncationMetrics(cut)),
      },
      ...(cut === undefined ? {} : { logs: { truncation: cut } }),
    };
  }

  /** This seat's conversation so far (its prompts and moves), for the rollout log. */
  get conversation(): readonly Message[] {
    return this.messages;
  }

  /** A rollout limit cut this seat: the game ends for the other seat too. */
  truncate(reason: TruncationReason): void {
    this.game.truncate(reason);
  }

  async initialObservation(): Promise<InitialObservation> {
    await this.game.waitForTurn(this.player);
    // The game may already be over (the other seat moved illegally); the one step then just collects the result.
    return this.observation(true);
  }

  async step(action: Action): Promise<StepResult> {
    const parsed = safeParseResponse(this.renderer, action);
    this.messages.push({ role: 'assistant', content: getTextContent(parsed.message) });
    if (!this.game.over) this.game.play(this.player, parseMove(getTextContent(parsed.message)));
    if (this.game.over) return this.final();
    await this.game.waitForTurn(this.player);
    if (this.game.over) return this.final();
    const next = this.observation(false);
    return {
      reward: 0,
      episodeDone: false,
      nextObservation: next.observation,
      nextStopCondition: next.stopCondition,
      metrics: {},
    };
  }
}

/**
 * `numGames` games. Self-play: both seats of each game are envs of the group (run them concurrently). Random: one
 * env per game, playing X against a seeded random O.
 */
export class TicTacToeGroupBuilder implements EnvGroupBuilder {
  constructor(
    readonly renderer: Renderer,
    readonly numGames: number,
    readonly opponent: 'self' | 'random' = 'self',
    readonly seed = 0,
    readonly observation: TicTacToeObservation = 'conversation',
  ) {}

  async makeEnvs(): Promise<Env[]> {
    const envs: Env[] = [];
    const seat = (game: TicTacToeGame, player: Player) =>
      new TicTacToePlayerEnv(game, player, this.renderer, this.observation);
    for (let g = 0; g < this.numGames; g++) {
      if (this.opponent === 'self') {
        const game = new TicTacToeGame();
        envs.push(seat(game, 'X'), seat(game, 'O'));
      } else {
        const game = new TicTacToeGame({ randomOpponent: { player: 'O', seed: this.seed * 7919 + g } });
        envs.push(seat(game, 'X'));
      }
    }
    return envs;
  }

  logtreeTag(): string {
    return this.opponent === 'self' ? 'tic_tac_toe' : 'tic_tac_toe_vs_random';
  }

  /** Games of the rule player (see {@link ruleGameConversations}): both seats in self-play, X against random O. */
  async demonstrations(): Promise<Message[][]> {
    return Array.from({ length: this.numGames }, (_, g) =>
      ruleGameConversations(this.seed * 7919 + g, { opponent: this.opponent, observation: this.observation }),
    ).flat();
  }
}

/** Batches of tic-tac-toe groups. */
export class TicTacToeDataset implements RLDataset {
  readonly length: number;

  constructor(
    readonly renderer: Renderer,
    readonly batchSize: number,
    readonly gamesPerGroup: number,
    numBatches: number,
    readonly opponent: 'self' | 'random' = 'self',
    readonly seed = 0,
    readonly observation: TicTacToeObservation = 'conversation',
  ) {
    this.length = numBatches;
  }

  getBatch(index: number): EnvGroupBuilder[] {
    return Array.from(
      { length: this.batchSize },
      (_, j) =>
        new TicTacToeGroupBuilder(
          this.renderer,
          this.gamesPerGroup,
          this.opponent,
          this.seed * 1_000_003 + index * this.batchSize + j,
          this.observation,
        ),
    );
  }
}

const ticTacToeShape = {
  opponent: z
    .enum(['random', 'self'])
    .default('random')
    .describe(
      'tic_tac_toe: train X against a seeded random O (its win rate env/all/win is the headline) or self-play ' +
        '(both seats trained; the test set then plays X against a random O every eval_every steps)',
    ),
  observation: z
    .enum(['board', 'conversation'])
    .default('board')
    .describe(
      'tic_tac_toe: what a player sees each turn — board = a fresh prompt with the rules, the last move and the ' +
        'current board (short, Markov); conversation = one growing conversation of every turn',
    ),
};

/** `env=tic_tac_toe`: play X against a seeded random O, or self-play with both seats in one group. */
export const ticTacToeEnv = defineEnv({
  name: 'tic_tac_toe',
  description: 'Tic-tac-toe against a seeded random player, or self-play (both seats trained)',
  configShape: ticTacToeShape,
  async build(config, ctx) {
    const { renderer, groupsPerBatch, groupSize } = ctx;
    if (config.opponent === 'random') {
      // group_size games per group.
      return {
        train: (seed, batches) =>
          new TicTacToeDataset(renderer, groupsPerBatch, groupSize, batches, 'random', seed, config.observation),
        demonstrations: true,
        headline: 'env/all/win',
      };
    }
    // Self-play: group_size / 2 games per group, both seats trained; the test set plays X against a random O.
    const games = Math.max(1, Math.floor(groupSize / 2));
    return {
      train: (seed, batches) =>
        new TicTacToeDataset(renderer, groupsPerBatch, games, batches, 'self', seed, config.observation),
      test: (seed) => new TicTacToeDataset(renderer, 1, groupSize, 1, 'random', seed + 1, config.observation),
      demonstrations: true,
      headline: 'test/env/all/win',
    };
  },
});
