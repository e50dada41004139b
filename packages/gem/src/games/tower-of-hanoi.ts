/**
 * Tower of Hanoi (GEM `tower_of_hanoi.py`): move `numDisks` disks from tower A to tower C.
 *
 * As in GEM: moving from an empty tower or a larger disk onto a smaller one is invalid (0); a legal move pays 0
 * (moving a tower onto itself is a legal no-op); all disks on C wins 1.0; at the turn limit the reward is the
 * fraction of disks on C. Actions `\boxed{A C}` (A/B/C, either case, optional spaces or comma between).
 */
import { z } from 'zod';
import { pyList } from '../core/boxed.js';
import type { ResetResult, StepResult } from '../core/env.js';
import { LanguageGameReward } from '../core/env.js';
import { pyRegExp } from '../core/python-text.js';
import type { EnvOptions } from '../core/registry.js';
import { GameEnv } from './internal/game-env.js';
import { parseGameOptions, seedOpt } from './internal/options.js';

export const TowerOfHanoiOptions = z.object({
  numDisks: z.number().int().min(1).max(20).nullable().default(3).describe('disks on tower A; null = random'),
  maxTurns: z.number().int().min(1).nullable().default(100).describe('turn limit; null = random variant'),
  seed: seedOpt,
});

/** GEM's random-variant settings: (disks, turns). */
const RANDOM_SETTINGS: readonly [number, number][] = [
  [3, 10],
  [4, 20],
  [5, 35],
];

const MOVE = pyRegExp(String.raw`\\boxed{([ABCabc])\s*,?\s*([ABCabc])}`);
type Tower = 'A' | 'B' | 'C';
const TOWERS: readonly Tower[] = ['A', 'B', 'C'];

export class TowerOfHanoi extends GameEnv {
  numDisks: number;
  maxTurns: number;
  readonly isRandom: boolean;
  /** Each tower's disks, bottom first. */
  towers: Record<Tower, number[]> = { A: [], B: [], C: [] };

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('TowerofHanoi', TowerOfHanoiOptions, options);
    super(o.seed);
    this.isRandom = o.numDisks === null || o.maxTurns === null;
    this.numDisks = o.numDisks ?? 3;
    this.maxTurns = o.maxTurns ?? 10;
    this.resetGame();
  }

  /** `A: [3, 2, 1]\nB: []\nC: []\n`. */
  renderBoard(): string {
    return TOWERS.map((t) => `${t}: ${pyList(this.towers[t])}\n`).join('');
  }

  taskSuffix(): string {
    return `Here is the current state of the tower of hanoi:\n${this.renderBoard()}\nEnter your move.`;
  }

  private instructions(): string {
    return (
      `You are playing Tower of Hanoi with ${this.numDisks} disks.\n` +
      'You have to move the disks from tower A to tower C.\n' +
      "To move a disk, type the source tower and the target tower (e.g., '\\boxed{A C}').\n" +
      'Note that you can only move the top disk of a tower, and that a bigger disk cannot be placed on a smaller disk.\n' +
      'As you play, the history of your moves will be displayed.\n'
    );
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) [this.numDisks, this.maxTurns] = this.rng.choice(RANDOM_SETTINGS);
    this.towers = { A: Array.from({ length: this.numDisks }, (_, i) => this.numDisks - i), B: [], C: [] };
    this.turnCount = 0;
    return { observation: this.instructions(), info: this.info() };
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    let last: RegExpMatchArray | undefined;
    for (const m of action.matchAll(MOVE)) last = m;
    if (last === undefined) return this.formatError('You did not provide a valid action.');
    const src = last[1]!.toUpperCase() as Tower;
    const dst = last[2]!.toUpperCase() as Tower;
    const from = this.towers[src];
    const to = this.towers[dst];
    let observation: string;
    if (from.length === 0) {
      observation = `At turn ${k}, you tried to move from tower ${src}, which is empty.`;
    } else if (to.length > 0 && from[from.length - 1]! > to[to.length - 1]!) {
      observation = `At turn ${k}, you tried to move from tower ${src} to tower ${dst}, but the top disk on tower ${src} is larger than the top disk on tower ${dst}.`;
    } else {
      const disk = from.pop()!;
      to.push(disk);
      observation = `At turn ${k}, you moved disk ${disk} from tower ${src} to tower ${dst}.`;
      if (this.towers.C.length === this.numDisks) {
        return this.win('Congratulations! You solved the Tower of Hanoi Puzzle', LanguageGameReward.success);
      }
    }
    return this.continueOrTimeout(
      observation,
      LanguageGameReward.internalStep,
      () => this.towers.C.length / this.numDisks,
    );
  }

  /** A legal move between two different towers (GEM's env has none; this one is for demonstrations). */
  sampleRandomAction(): string {
    const legal: string[] = [];
    for (const s of TOWERS) {
      for (const d of TOWERS) {
        const from = this.towers[s];
        const to = this.towers[d];
        if (s === d || from.length === 0) continue;
        if (to.length === 0 || from[from.length - 1]! < to[to.length - 1]!) legal.push(`${s} ${d}`);
      }
    }
    return `\\boxed{${this.rng.choice(legal)}}`;
  }
}
