/**
 * The scripted action sequences of the differential fixtures: per game, valid, invalid and malformed moves, huge
 * numbers, Unicode digits / spaces / case, and moves after the episode ended. Actions may read the env's hidden state
 * (to play a correct move); the recorded actions are plain strings.
 */

type Loose = Record<string, unknown>;

export interface DifferentialCase {
  name: string;
  envId: string;
  seed: number;
  actions: (env: Loose) => string[];
}

const b = (s: string) => `\\boxed{${s}}`;
const HUGE = '99999999999999999999';
const DIGITS_4300 = '1'.repeat(4300);
const DIGITS_4301 = '1'.repeat(4301);

export const DIFFERENTIAL_CASES: DifferentialCase[] = [
  {
    name: 'guess-the-number/huge-and-unicode',
    envId: 'game:GuessTheNumber-v0-hard',
    seed: 3,
    actions: () => [
      b(HUGE),
      b('123456789012345678901234567890'),
      `I think ${b('５')}`,
      b('٥'),
      b('𝟓'),
      b('-3'),
      b(DIGITS_4300),
    ],
  },
  {
    name: 'guess-the-number/too-many-digits',
    envId: 'game:GuessTheNumber-v0-easy',
    seed: 4,
    actions: () => [b(DIGITS_4301)],
  },
  { name: 'guess-the-number/zero', envId: 'game:GuessTheNumber-v0-easy', seed: 5, actions: () => [b('00')] },
  {
    name: 'guess-the-number/win-then-after-end',
    envId: 'game:GuessTheNumber-v0-easy',
    seed: 6,
    actions: (env) => [b('1'), `${b('2')} no, ${b(String(env.target))}`, b('3'), b('4')],
  },
  {
    name: 'guess-the-number/max-turns-partial-credit',
    envId: 'game:GuessTheNumber-v0-easy',
    seed: 7,
    actions: (env) => {
      const wrong = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].filter((x) => x !== env.target);
      return [b(String(wrong[0])), b(String(wrong[0])), b('11'), b(String(wrong[1]))];
    },
  },
  {
    name: 'mastermind/huge-and-unicode',
    envId: 'game:Mastermind-v0-hard',
    seed: 1,
    actions: () => [
      b('123456789012345678901 1'),
      b('1 2 3 4 5'),
      b('1,2,3,4'),
      b('1\u001c2\u001f3\u00854'),
      b('1 2 3 4'),
      b('１ ２ ３ ４'),
      b('0 1 2 3'),
      b('1\ufeff2 3 4'),
    ],
  },
  {
    name: 'mastermind/win-then-after-end',
    envId: 'game:Mastermind-v0-easy',
    seed: 2,
    actions: (env) => [b('1 1'), b((env.code as number[]).join('  ')), b('1 2')],
  },
  {
    name: 'mastermind/too-many-digits',
    envId: 'game:Mastermind-v0-easy',
    seed: 3,
    actions: () => [b(`1 ${DIGITS_4301}`)],
  },
  {
    name: 'hangman/ignorecase-and-unicode-case',
    envId: 'game:Hangman-v0-easy',
    seed: 20,
    actions: () => ['\\BOXED{E}', '\\Boxed{c}', b('ı'), b('E'), b('ſ'), b('\u212a'), b('XYZW'), b('ABC'), b('e1')],
  },
  {
    name: 'hangman/word-win-then-after-end',
    envId: 'game:Hangman-v0-easy',
    seed: 20,
    actions: (env) => [b('e'), b(String(env.secret).toLowerCase()), b('Z')],
  },
  {
    name: 'wordle/tab-is-not-removed',
    envId: 'game:Wordle-v0-easy',
    seed: 29,
    actions: () => [b('R\tOD'), b('R\nO D'), b('rod'), b('ROD')],
  },
  {
    name: 'wordle/feedback-and-max-turns',
    envId: 'game:Wordle-v0-easy',
    seed: 29,
    actions: () => [b('ODR'), b('ODR'), b('R OO'), b('DOR'), b('ſun'), 'no box'],
  },
  {
    name: 'minesweeper/huge-unicode-and-verbs',
    envId: 'game:Minesweeper-v0-easy',
    seed: 1,
    actions: () => [
      b('reveal 2 2'),
      b(`REVEAL ${HUGE} 1`),
      b('reveal 2 2'),
      b('dig 0 0'),
      b('flag ٠ ٠'),
      b('flag 0 0'),
      b('flag\u001c4\u001d4'),
      b('reveal 0 0'),
      b('reveal  1 1'),
    ],
  },
  {
    name: 'sudoku/huge-unicode-and-moves',
    envId: 'game:Sudoku-v0-easy',
    seed: 1,
    actions: (env) => {
      const board = env.board as number[][];
      const solution = env.solution as number[][];
      const empty: [number, number][] = [];
      const filled: [number, number][] = [];
      board.forEach((row, r) => {
        row.forEach((v, c) => {
          (v === 0 ? empty : filled).push([r + 1, c + 1]);
        });
      });
      const [er, ec] = empty[0]!;
      const [fr, fc] = filled[0]!;
      const right = solution[er - 1]![ec - 1]!;
      const wrong = (right % 4) + 1;
      return [
        b(`${HUGE} 1 1`),
        b(`${er} ${ec} ${wrong}`),
        b(`${fr} ${fc} ${solution[fr - 1]![fc - 1]}`),
        b(`${String.fromCodePoint(0xff10 + er)} ${ec} ${right}`),
        b(`${er} ${ec} ${right}`),
        b(`0 1 1`),
        b(`1  1 1`),
      ];
    },
  },
  {
    name: 'tower-of-hanoi/separators-and-case',
    envId: 'game:TowerofHanoi-v0-easy',
    seed: 1,
    actions: () => [b('A C'), b('a,b'), b('C\u001fB'), b('A , C'), b('A D'), b('B A'), b('c c'), b('x')],
  },
  {
    name: 'game-2048/case-folding',
    envId: 'game:Game2048-v0-easy',
    seed: 1,
    actions: () => [b('rıght'), b('RIGHT'), b('Left'), b('UP'), b('dOwN'), b('rİght'), b('north')],
  },
  {
    name: 'fifteen-puzzle/lower-case-only',
    envId: 'game:FifteenPuzzle-v0-easy',
    seed: 1,
    actions: () => [b('up'), b('left'), b('down'), b('right'), b('up'), b('UP')],
  },
  {
    name: 'word-search/huge-found-reversed-after-end',
    envId: 'game:WordSearch-v0-easy',
    seed: 1,
    actions: (env) => {
      const placed = [...(env.placedWords as Map<string, { row: number; col: number; direction: string }>)];
      const ends = placed.map(([w, p]) =>
        p.direction === 'across'
          ? [p.row, p.col, p.row, p.col + w.length - 1]
          : [p.row, p.col, p.row + w.length - 1, p.col],
      );
      const first = ends[0]!;
      const acts = [
        b(`${HUGE} 0 0 0`),
        b(first.join(' ')),
        b(first.join(' ')),
        b([first[2], first[3], first[0], first[1]].join(' ')),
        b('0 0 1 1'),
        b('0 0 0 1'),
        b(`${String.fromCodePoint(0x660 + first[0]!)} ${first[1]} ${first[2]} ${first[3]}`),
      ];
      for (const e of ends.slice(1)) acts.push(b(e.join('\u3000')));
      acts.push(b('0 0 0 2'));
      return acts;
    },
  },
  {
    name: 'crosswords/huge-unicode-letters-after-end',
    envId: 'game:Crosswords-v0-easy',
    seed: 1,
    actions: (env) => {
      const solution = env.solution as string[][];
      const cells: [number, number, string][] = [];
      solution.forEach((row, r) => {
        row.forEach((ch, c) => {
          if (ch !== '.') cells.push([r, c, ch]);
        });
      });
      let dot: [number, number] = [0, 0];
      solution.forEach((row, r) => {
        row.forEach((ch, c) => {
          if (ch === '.') dot = [r, c];
        });
      });
      const [r0, c0, l0] = cells[0]!;
      const wrong = l0.toUpperCase() === 'Q' ? 'z' : 'q';
      const acts = [
        b(`123456789012345678901 0 A`),
        b(`${dot[0]} ${dot[1]} A`),
        b(`${r0} ${c0} ${wrong}`),
        b(`${String.fromCodePoint(0x966 + r0)}\u2003${c0} ${l0}`),
        b(`${r0} ${c0} ${l0}`),
        b(`${r0} ${c0} ab`),
      ];
      for (const [r, c, l] of cells.slice(1)) acts.push(b(`${r} ${c} ${l.toUpperCase()}`));
      acts.push(b(`${r0} ${c0} ${l0}`));
      return acts;
    },
  },
  {
    name: 'sokoban/moves-and-case',
    envId: 'game:Sokoban-v0-easy',
    seed: 1,
    actions: () => [b('UP'), b('Down'), b('left'), b('right'), b('up'), b('down'), b('stay'), b('rıght')],
  },
  {
    name: 'word-search/too-many-digits',
    envId: 'game:WordSearch-v0-easy',
    seed: 2,
    actions: () => [b(`${DIGITS_4301} 0 0 0`)],
  },
  {
    name: 'crosswords/too-many-digits',
    envId: 'game:Crosswords-v0-easy',
    seed: 2,
    actions: () => [b(`0 ${DIGITS_4301} A`)],
  },
];
