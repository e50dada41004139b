/**
 * Small searches behind the board-game players: the sliding puzzle (IDA* with the Manhattan heuristic, under a
 * node budget), Sokoban (breadth-first over player and box positions, under a state budget) and Minesweeper
 * (single-cell deduction). Each returns the next move, or `undefined` when its budget runs out.
 */

/** A sliding-puzzle board, row-major, 0 = blank. */
export type Tiles = number[];

const SLIDE: readonly { dr: number; dc: number; action: string }[] = [
  // The blank moves by (dr, dc); the action names the tile's motion, the opposite way.
  { dr: 1, dc: 0, action: 'up' },
  { dr: -1, dc: 0, action: 'down' },
  { dr: 0, dc: 1, action: 'left' },
  { dr: 0, dc: -1, action: 'right' },
];

function manhattan(tiles: Tiles, n: number): number {
  let h = 0;
  tiles.forEach((t, i) => {
    if (t === 0) return;
    const goal = t - 1;
    h += Math.abs(Math.floor(i / n) - Math.floor(goal / n)) + Math.abs((i % n) - (goal % n));
  });
  return h;
}

/** The first move of a shortest solution found by IDA* within `budget` node expansions. */
export function slidingPuzzleMove(tiles: Tiles, n: number, budget = 2_000_000): string | undefined {
  const board = [...tiles];
  let blank = board.indexOf(0);
  let nodes = 0;
  let first: string | undefined;
  const search = (g: number, bound: number, prevBlank: number, h: number): number => {
    const f = g + h;
    if (f > bound) return f;
    if (h === 0) return -1;
    if (++nodes > budget) return Number.POSITIVE_INFINITY;
    let min = Number.POSITIVE_INFINITY;
    const r = Math.floor(blank / n);
    const c = blank % n;
    for (const m of SLIDE) {
      const nr = r + m.dr;
      const nc = c + m.dc;
      if (nr < 0 || nr >= n || nc < 0 || nc >= n) continue;
      const to = nr * n + nc;
      if (to === prevBlank) continue;
      const tile = board[to]!;
      const goal = tile - 1;
      const before = Math.abs(nr - Math.floor(goal / n)) + Math.abs(nc - (goal % n));
      const after = Math.abs(r - Math.floor(goal / n)) + Math.abs(c - (goal % n));
      board[blank] = tile;
      board[to] = 0;
      const from = blank;
      blank = to;
      const t = search(g + 1, bound, from, h - before + after);
      blank = from;
      board[to] = tile;
      board[from] = 0;
      if (t === -1) {
        if (g === 0) first = m.action;
        return -1;
      }
      if (t < min) min = t;
    }
    return min;
  };
  const h0 = manhattan(board, n);
  if (h0 === 0 && board[n * n - 1] === 0) return undefined;
  for (let bound = h0; bound < 200; ) {
    const t = search(0, bound, -1, h0);
    if (t === -1) return first;
    if (!Number.isFinite(t)) return undefined;
    bound = t;
  }
  return undefined;
}

/** A Sokoban position: row-major walls and targets, the player and the boxes. */
export interface SokobanPosition {
  cols: number;
  walls: boolean[];
  targets: Set<number>;
  player: number;
  boxes: number[];
}

const PUSH: readonly [string, number, number][] = [
  ['up', -1, 0],
  ['down', 1, 0],
  ['left', 0, -1],
  ['right', 0, 1],
];

/** The first move of a shortest solution (in moves) by breadth-first search within `budget` states. */
export function sokobanMove(pos: SokobanPosition, budget = 400_000): string | undefined {
  const { cols, walls, targets } = pos;
  const key = (p: number, boxes: readonly number[]): string => `${p}:${[...boxes].sort((a, b) => a - b).join(',')}`;
  const seen = new Set<string>([key(pos.player, pos.boxes)]);
  let frontier: { p: number; boxes: number[]; first: string | undefined }[] = [
    { p: pos.player, boxes: pos.boxes, first: undefined },
  ];
  while (frontier.length > 0 && seen.size < budget) {
    const next: typeof frontier = [];
    for (const { p, boxes, first } of frontier) {
      for (const [name, dr, dc] of PUSH) {
        const d = dr * cols + dc;
        const to = p + d;
        if (walls[to]) continue;
        let nb = boxes;
        const bi = boxes.indexOf(to);
        if (bi >= 0) {
          const beyond = to + d;
          if (walls[beyond] || boxes.includes(beyond)) continue;
          nb = boxes.slice();
          nb[bi] = beyond;
        }
        const k = key(to, nb);
        if (seen.has(k)) continue;
        seen.add(k);
        const move = first ?? name;
        if (nb.every((b) => targets.has(b))) return move;
        next.push({ p: to, boxes: nb, first: move });
      }
    }
    frontier = next;
  }
  return undefined;
}

/** A Minesweeper board as shown: `-1` hidden, `-2` flagged, else the revealed count. */
export type MineView = number[][];

/**
 * One step: flag the hidden neighbours of a number that must all be mines, else reveal a hidden neighbour of a
 * number whose flags already account for it (flags come first because GEM checks for a win only after a reveal,
 * so the last safe cell must be revealed after the last flag); else reveal the hidden cell of least estimated
 * risk (the first move goes to the centre; cells next to no number count the density of the unflagged mines).
 * `mines` (the board's mine count) lets it hold back the last safe cell until every mine is flagged.
 */
export function minesweeperMove(view: MineView, mines: number): string {
  const rows = view.length;
  const cols = view[0]?.length ?? 0;
  const around = (r: number, c: number): [number, number][] => {
    const out: [number, number][] = [];
    for (let dr = -1; dr <= 1; dr++) {
      for (let dc = -1; dc <= 1; dc++) {
        const nr = r + dr;
        const nc = c + dc;
        if ((dr || dc) && nr >= 0 && nr < rows && nc >= 0 && nc < cols) out.push([nr, nc]);
      }
    }
    return out;
  };
  const hiddenCells: [number, number][] = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) if (view[r]![c] === -1) hiddenCells.push([r, c]);
  if (hiddenCells.length === rows * cols) return `reveal ${Math.floor(rows / 2)} ${Math.floor(cols / 2)}`;
  const numbers: { r: number; c: number; need: number; hidden: [number, number][] }[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const v = view[r]![c]!;
      if (v < 0) continue;
      const nb = around(r, c);
      const flags = nb.filter(([a, b]) => view[a]![b] === -2).length;
      const hidden = nb.filter(([a, b]) => view[a]![b] === -1);
      if (hidden.length > 0) numbers.push({ r, c, need: v - flags, hidden });
    }
  }
  const mine = numbers.find((x) => x.need === x.hidden.length);
  if (mine !== undefined) return `flag ${mine.hidden[0]![0]} ${mine.hidden[0]![1]}`;
  const flagged = view.flat().filter((v) => v === -2).length;
  const minesLeft = mines - flagged;
  const safe = numbers.find((x) => x.need === 0);
  if (safe !== undefined) {
    const [sr, sc] = safe.hidden[0]!;
    // The last safe cell: every other hidden cell is a mine; flag them first so this reveal wins.
    if (minesLeft > 0 && hiddenCells.length - minesLeft === 1) {
      const other = hiddenCells.find(([r, c]) => r !== sr || c !== sc);
      if (other !== undefined) return `flag ${other[0]} ${other[1]}`;
    }
    return `reveal ${sr} ${sc}`;
  }
  if (hiddenCells.length === 0) {
    // Nothing left to reveal: an already revealed cell is a harmless (invalid) move.
    const open = view.flatMap((row, r) => row.flatMap((v, c) => (v >= 0 ? [[r, c]] : [])))[0] ?? [0, 0];
    return `reveal ${open[0]} ${open[1]}`;
  }
  const risk = new Map<string, number>();
  for (const x of numbers) {
    const p = x.need / x.hidden.length;
    for (const [a, b] of x.hidden) risk.set(`${a},${b}`, Math.max(risk.get(`${a},${b}`) ?? 0, p));
  }
  const density = hiddenCells.length > 0 ? Math.max(minesLeft, 0) / hiddenCells.length : 0;
  const riskOf = ([r, c]: [number, number]): number => risk.get(`${r},${c}`) ?? density;
  const pick = [...hiddenCells].sort((a, b) => riskOf(a) - riskOf(b))[0]!;
  return `reveal ${pick[0]} ${pick[1]}`;
}

/**
 * 2048 by one-ply lookahead: the move (of those that change the board) leaving the most empty cells, ties broken
 * by the larger corner tile and then in the order down, left, right, up.
 */
export function game2048Move(
  board: number[][],
  slide: (b: number[][], m: 'up' | 'down' | 'left' | 'right') => number[][],
): string {
  let best: string | undefined;
  let bestScore = Number.NEGATIVE_INFINITY;
  const n = board.length;
  for (const m of ['down', 'left', 'right', 'up'] as const) {
    const next = slide(board, m);
    if (next.every((row, r) => row.every((v, c) => v === board[r]![c]))) continue;
    const empty = next.flat().filter((v) => v === 0).length;
    const corner = next[n - 1]![0]!;
    const score = empty * 1e6 + corner;
    if (score > bestScore) {
      bestScore = score;
      best = m;
    }
  }
  return best ?? 'down';
}
