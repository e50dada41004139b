/**
 * The synthetic pretraining corpus of the built-in stand-in's layers: short chat exchanges that need the skills a real
 * base model brings to post-training and that a tiny model with random layers lacks: reading where things stand in its
 * context. Copying, looking up by position, choosing from the list that comes last (with distracting bracketed numbers
 * before it), reading 3×3 grids (cell contents, empty cells, three in a row), comparing two labelled texts, ordering
 * numbers, writing a value in LaTeX's `\boxed{}` (the notation math answers use, as a real base model has seen), and
 * chats of several such exchanges (reading the last message, and its own last answer). None of it is a task a recipe
 * trains or grades: the games, arithmetic and preference data of the recipes are generated elsewhere, from their own
 * seeds.
 */
import { type Message, Sfc32Rng } from '@cookbook/core';
import { type Cell, renderBoard, winnerOf } from '@cookbook/rl';

const WORDS = (
  'apple river stone cloud green quick table light music paper north winter garden silver dream market ' +
  'forest bread ocean tiger yellow honey window simple bright happy little orange castle planet rabbit'
).split(' ');

type Gen = (rng: Sfc32Rng) => { prompt: string; answer: string };

const words = (rng: Sfc32Rng, n: number) => Array.from({ length: n }, () => rng.choice(WORDS));
const nums = (rng: Sfc32Rng, n: number, hi: number) => Array.from({ length: n }, () => rng.int(0, hi));

/** A 3×3 grid in the tic-tac-toe layout (the env's own rendering): X, O, or the cell's number (1–9) when empty. */
function grid(rng: Sfc32Rng): { cells: Cell[]; text: string } {
  const filled = rng.int(0, 8);
  const cells: Cell[] = new Array<Cell>(9).fill(null);
  for (const i of rng.shuffle([...Array(9).keys()]).slice(0, filled)) cells[i] = rng.random() < 0.5 ? 'X' : 'O';
  return { cells, text: renderBoard(cells) };
}

const distractor = (rng: Sfc32Rng) =>
  rng.choice([`Example: [${rng.int(1, 9)}].\n`, `Earlier: [${rng.int(1, 9)}].\n`, `Not [${rng.int(1, 9)}].\n`, '']);

const GENERATORS: Record<string, Gen> = {
  copy: (rng) => {
    const w = words(rng, rng.int(1, 5)).join(' ');
    return { prompt: `Repeat: ${w}`, answer: w };
  },
  lookup: (rng) => {
    const w = words(rng, rng.int(2, 7));
    const k = rng.int(1, w.length);
    return { prompt: `Words: ${w.join(' ')}\nWord ${k}:`, answer: w[k - 1]! };
  },
  choose: (rng) => {
    const opts = rng.shuffle([...Array(9).keys()].map((i) => i + 1)).slice(0, rng.int(1, 6));
    opts.sort((a, b) => a - b);
    const label = rng.choice(['Options', 'Choices', 'Allowed', 'Available moves']);
    const g = rng.random() < 0.5 ? `${grid(rng).text}\n` : '';
    const list = opts.map((o) => `[${o}]`).join(' ');
    return { prompt: `${distractor(rng)}${g}${label}: ${list}\nPick one:`, answer: `[${rng.choice(opts)}]` };
  },
  cell: (rng) => {
    const g = grid(rng);
    const k = rng.int(1, 9);
    return { prompt: `${g.text}\nCell ${k}:`, answer: g.cells[k - 1] ?? 'empty' };
  },
  empty: (rng) => {
    const g = grid(rng);
    const empty = g.cells.flatMap((c, i) => (c === null ? [`[${i + 1}]`] : []));
    return { prompt: `${distractor(rng)}${g.text}\nEmpty cells:`, answer: empty.length > 0 ? empty.join(' ') : 'none' };
  },
  three: (rng) => {
    const g = grid(rng);
    return { prompt: `${g.text}\nThree in a row:`, answer: winnerOf(g.cells) ?? 'none' };
  },
  compare: (rng) => {
    const a = words(rng, rng.int(1, 5));
    let b = words(rng, rng.int(1, 5));
    while (b.length === a.length) b = words(rng, rng.int(1, 5));
    const kind = rng.int(0, 2);
    if (kind === 0)
      return { prompt: `A: ${a.join(' ')}\nB: ${b.join(' ')}\nLonger:`, answer: a.length > b.length ? 'A' : 'B' };
    if (kind === 1)
      return { prompt: `A: ${a.join(' ')}\nB: ${b.join(' ')}\nShorter:`, answer: a.length < b.length ? 'A' : 'B' };
    const withNum = rng.random() < 0.5;
    const x = withNum ? [...a, String(rng.int(0, 99))] : a;
    const y = withNum ? b : [...b, String(rng.int(0, 99))];
    return { prompt: `A: ${x.join(' ')}\nB: ${y.join(' ')}\nHas a number:`, answer: withNum ? 'A' : 'B' };
  },
  box: (rng) => {
    const v = rng.random() < 0.7 ? String(rng.int(0, 99)) : rng.choice(WORDS);
    const prompt = rng.choice([`Put ${v} in a box.`, `Box the answer: ${v}`, `Final answer ${v}, boxed:`]);
    return { prompt, answer: `\\boxed{${v}}` };
  },
  order: (rng) => {
    const xs = nums(rng, rng.int(2, 6), 99);
    const kind = rng.choice(['Largest', 'Smallest', 'Last', 'First']);
    const answer =
      kind === 'Largest'
        ? Math.max(...xs)
        : kind === 'Smallest'
          ? Math.min(...xs)
          : kind === 'Last'
            ? xs[xs.length - 1]!
            : xs[0]!;
    return { prompt: `Numbers: ${xs.join(' ')}\n${kind}:`, answer: String(answer) };
  },
};

const SINGLE_TURN = Object.keys(GENERATORS);

/**
 * A chat of two or three exchanges of the single-turn families: every answer depends on its own question only, so
 * the model learns to read the last user message (however short) rather than the first. Half the time the last
 * message is "Again", answered with the previous answer: reading its own earlier turn.
 */
function chat(rng: Sfc32Rng): Message[] {
  const out: Message[] = [];
  const turns = rng.int(2, 3);
  for (let t = 0; t < turns; t++) {
    if (t === turns - 1 && rng.random() < 0.5) {
      out.push({ role: 'user', content: 'Again', trainable: false });
      out.push({ role: 'assistant', content: out.at(-2)!.content, trainable: true });
      break;
    }
    const { prompt, answer } = GENERATORS[rng.choice(SINGLE_TURN)]!(rng);
    out.push({ role: 'user', content: prompt, trainable: false });
    out.push({ role: 'assistant', content: answer, trainable: true });
  }
  return out;
}

/** The task families of the corpus. */
export const CORPUS_FAMILIES = [...SINGLE_TURN, 'chat'];

/**
 * `n` conversations drawn evenly from every family, seeded: a user prompt and a trainable assistant answer, or (the
 * `chat` family) several such exchanges, each answer trainable.
 */
export function standinCorpus(n: number, seed: number): { family: string; conversation: Message[] }[] {
  const rng = new Sfc32Rng(seed);
  const out: { family: string; conversation: Message[] }[] = [];
  for (let i = 0; i < n; i++) {
    const family = CORPUS_FAMILIES[i % CORPUS_FAMILIES.length]!;
    if (family === 'chat') {
      out.push({ family, conversation: chat(rng) });
      continue;
    }
    const { prompt, answer } = GENERATORS[family]!(rng);
    out.push({
      family,
      conversation: [
        { role: 'user', content: prompt, trainable: false },
        { role: 'assistant', content: answer, trainable: true },
      ],
    });
  }
  return out;
}
