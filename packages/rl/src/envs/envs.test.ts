import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, MessageCompleter } from '@cookbook/core';
import { getRenderer, type Renderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { EnvFromMessageEnv } from '@cookbook/training';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedPolicy } from '../__fixtures__/fakes.js';
import { trajectoryToData } from '../data-processing.js';
import { doGroupRollout, doSingleRollout } from '../rollouts.js';
import {
  GuessNumberDataset,
  type GuessNumberGroupBuilder,
  GuessNumberMessageEnv,
  judgeGuess,
} from './guess-number-env.js';
import { ArithmeticEnv, buildMathDatasets, generateArithmeticProblems, loadGsm8kJsonl, MathEnv } from './math-env.js';
import {
  ILLEGAL_MOVE_REWARD,
  parseMove,
  TicTacToeGame,
  TicTacToeGroupBuilder,
  ticTacToeBoardPrompt,
  winnerOf,
} from './tic-tac-toe-env.js';
import {
  isCorrectGuess,
  RuleBasedAnswerer,
  TwentyQuestionsGroupBuilder,
  TwentyQuestionsMessageEnv,
} from './twenty-questions-env.js';

let renderer: Renderer;
/** Tokens of a reply as the policy would sample it: text then the renderer's end-of-message token. */
let reply: (text: string) => number[];

beforeAll(() => {
  const tok = getTokenizer('local/qwen3-tiny');
  renderer = getRenderer('qwen3_disable_thinking', tok);
  const imEnd = tok.convertTokenToId('<|im_end|>')!;
  reply = (text) => [...tok.encode(text), imEnd];
});

describe('ProblemEnv rewards', () => {
  it('arithmetic: correct and well formed earns 1; truncated loses format_coef', async () => {
    const env = new ArithmeticEnv(2, 3, renderer);
    const { observation } = await env.initialObservation();
    expect(renderer.tokenizer.decode(observation.toInts())).toContain('What is 2 + 3?');
    expect((await env.step(reply('The answer is 5'))).reward).toBe(1);
    const truncated = await new ArithmeticEnv(2, 3, renderer).step(renderer.tokenizer.encode('5'));
    expect(truncated.reward).toBeCloseTo(0.9);
    expect(truncated.metrics).toEqual({ format: 0, correct: 1 });
    const wrong = await new ArithmeticEnv(2, 3, renderer).step(reply('6'));
    expect(wrong.reward).toBe(0);
    expect(wrong.episodeDone).toBe(true);
  });

  it('math: boxed format and graded answer', async () => {
    const env = () => new MathEnv({ question: 'Half of one?', answer: '\\frac{1}{2}' }, renderer, { formatCoef: 0.2 });
    expect((await env().step(reply('It is \\boxed{0.5}'))).reward).toBe(1);
    expect((await env().step(reply('It is 0.5'))).reward).toBeCloseTo(-0.2);
    expect((await env().step(reply('\\boxed{1}'))).metrics).toEqual({ format: 1, correct: 0 });
  });

  it('generated datasets are seeded and batched', async () => {
    expect(generateArithmeticProblems(3, 7)).toEqual(generateArithmeticProblems(3, 7));
    expect(generateArithmeticProblems(3, 7)).not.toEqual(generateArithmeticProblems(3, 8));
    const { train, test } = await buildMathDatasets({
      env: 'math',
      renderer,
      batchSize: 2,
      groupSize: 3,
      numBatches: 4,
      numTestProblems: 2,
    });
    expect(train.length).toBe(4);
    expect(train.getBatch(0)).toHaveLength(2);
    expect(await train.getBatch(1)[0]!.makeEnvs()).toHaveLength(3);
    expect(test?.getBatch(0)).toHaveLength(2);
  });

  it('gsm8k loader parses #### answers and reports bad lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsm8k-'));
    const good = join(dir, 'g.jsonl');
    writeFileSync(good, `${JSON.stringify({ question: 'Q?', answer: 'work\n#### 1,200' })}\n`);
    expect(await loadGsm8kJsonl(good)).toEqual([{ question: 'Q?', answer: '1200' }]);
    const bad = join(dir, 'b.jsonl');
    writeFileSync(bad, `${JSON.stringify({ question: 'Q?', answer: 'no marker' })}\n`);
    await expect(loadGsm8kJsonl(bad)).rejects.toThrow(/####/);
  });
});

describe('guess the number', () => {
  it('answers higher/lower and rewards only a correct guess', async () => {
    expect(judgeGuess(3, 5)).toBe('Too low');
    expect(judgeGuess(7, 5)).toBe('Too high');
    expect(judgeGuess(5, 5)).toBe('Correct');
    expect(judgeGuess(undefined, 5)).toBe('Invalid');
    const env = new EnvFromMessageEnv(renderer, new GuessNumberMessageEnv(6, { low: 0, high: 10, maxTurns: 5 }));
    const policy = new ScriptedPolicy([reply('3'), reply('8'), reply('6')]);
    const traj = await doSingleRollout(policy, env);
    expect(traj.transitions.map((t) => t.reward)).toEqual([0, 0, 1]);
    const text = renderer.tokenizer.decode(traj.transitions[2]!.ob.toInts());
    expect(text).toContain('Too low');
    expect(text).toContain('Too high');
    // qwen3_disable_thinking drops the empty think block from history: no extension, one datum per turn.
    expect(renderer.hasExtensionProperty).toBe(false);
    expect(trajectoryToData(traj, 1)).toHaveLength(3);
    // qwen3_instruct has the extension property: the three turns merge into one datum.
    const instruct = getRenderer('qwen3_instruct', renderer.tokenizer);
    const env2 = new EnvFromMessageEnv(instruct, new GuessNumberMessageEnv(6, { low: 0, high: 10, maxTurns: 5 }));
    const traj2 = await doSingleRollout(new ScriptedPolicy([reply('3'), reply('8'), reply('6')]), env2);
    expect(trajectoryToData(traj2, 1)).toHaveLength(1);
  });

  it('ends after maxTurns', async () => {
    const env = new EnvFromMessageEnv(renderer, new GuessNumberMessageEnv(6, { maxTurns: 2 }));
    const traj = await doSingleRollout(new ScriptedPolicy([reply('1')]), env);
    expect(traj.transitions).toHaveLength(2);
    expect(traj.transitions.every((t) => t.reward === 0)).toBe(true);
    const ds = new GuessNumberDataset(renderer, 2, 3, 5, 1);
    expect(ds.getBatch(0)).toHaveLength(2);
    expect(ds.length).toBe(5);
  });

  it('draws secrets balanced: every secret of the range once per pass, in a seeded order', () => {
    const ds = new GuessNumberDataset(renderer, 3, 2, 8, 4, { low: 0, high: 7 });
    const secrets = Array.from({ length: 8 }, (_, i) =>
      ds.getBatch(i).map((b) => (b as GuessNumberGroupBuilder).secret),
    ).flat();
    expect([...secrets.slice(0, 8)].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([...secrets.slice(8, 16)].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(secrets.slice(0, 8)).not.toEqual(secrets.slice(8, 16));
    const again = new GuessNumberDataset(renderer, 3, 2, 8, 4, { low: 0, high: 7 });
    expect(again.getBatch(5).map((b) => (b as GuessNumberGroupBuilder).secret)).toEqual(secrets.slice(15, 18));
  });
});

describe('twenty questions', () => {
  it('the rule-based answerer says yes for matching attributes', async () => {
    const a = new RuleBasedAnswerer();
    const ask = async (q: string) =>
      (
        await a.complete([
          { role: 'system', content: 'The secret object is "eagle". Answer Yes or No.' },
          { role: 'user', content: q },
        ])
      ).content;
    expect(await ask('Is it an animal?')).toBe('Yes');
    expect(await ask('Can it fly?')).toBe('Yes');
    expect(await ask('Is it food?')).toBe('No');
    expect(isCorrectGuess('Guess: Eagle.', 'eagle')).toBe(true);
    expect(isCorrectGuess('eagle', 'eagle')).toBe(false);
  });

  it('the answerer is a MessageCompleter that sees only the system prompt and the last question', async () => {
    const seen: Message[][] = [];
    const answerer: MessageCompleter = {
      complete: async (m) => {
        seen.push(m);
        return { role: 'assistant', content: 'No' };
      },
    };
    const env = new EnvFromMessageEnv(renderer, new TwentyQuestionsMessageEnv('cat', answerer, { maxQuestions: 3 }));
    const traj = await doSingleRollout(new ScriptedPolicy([reply('Is it big?'), reply('Guess: cat')]), env);
    expect(traj.transitions.map((t) => t.reward)).toEqual([0, 1]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.map((m) => m.role)).toEqual(['system', 'user']);
    expect(seen[0]![1]!.content).toBe('Is it big?');
    const g = await doGroupRollout(
      new TwentyQuestionsGroupBuilder('dog', renderer, new RuleBasedAnswerer(), 2, { maxQuestions: 2 }),
      new ScriptedPolicy([reply('Is it a pet?')]),
    );
    expect(g.getTotalRewards()).toEqual([0, 0]);
  });
});

describe('tic-tac-toe', () => {
  it('rules: winner, move parsing, illegal moves', () => {
    expect(winnerOf(['X', 'X', 'X', null, null, null, null, null, null])).toBe('X');
    expect(winnerOf(['O', null, null, null, 'O', null, null, null, 'O'])).toBe('O');
    expect(winnerOf(new Array(9).fill(null))).toBeNull();
    expect(parseMove('I play [5]')).toBe(4);
    expect(parseMove('maybe [1] no [9]')).toBe(8);
    expect(parseMove('five')).toBeUndefined();
    const game = new TicTacToeGame();
    game.play('X', 0);
    expect(() => game.play('X', 1)).toThrow(/O's turn/);
    game.play('O', 0);
    expect(game.outcome).toEqual({ illegalBy: 'O' });
    expect(game.rewardFor('O')).toBe(ILLEGAL_MOVE_REWARD);
    expect(game.rewardFor('X')).toBe(0);
  });

  it('self-play: both seats in one group, winner +1 and loser −1', async () => {
    // X plays 1, 2, 3 (wins); O plays 4, 5. The scripted policy serves calls in order X, O, X, O, X.
    const policy = new ScriptedPolicy([reply('[1]'), reply('[4]'), reply('[2]'), reply('[5]'), reply('[3]')]);
    const group = await doGroupRollout(new TicTacToeGroupBuilder(renderer, 1, 'self'), policy);
    expect(group.getTotalRewards()).toEqual([1, -1]);
    expect(group.trajectories_G[0]!.transitions).toHaveLength(3);
    expect(group.trajectories_G[1]!.transitions).toHaveLength(2);
    expect(group.trajectories_G[0]!.transitions.at(-1)!.metrics.win).toBe(1);
  });

  it('board observation: each turn is a fresh prompt with the current board and the available moves', async () => {
    const policy = new ScriptedPolicy([reply('[1]'), reply('[4]'), reply('[2]'), reply('[5]'), reply('[3]')]);
    const group = await doGroupRollout(new TicTacToeGroupBuilder(renderer, 1, 'self', 0, 'board'), policy);
    const prompts = policy.calls.map((c) => renderer.tokenizer.decode(c.prompt));
    expect(group.getTotalRewards()).toEqual([1, -1]);
    expect(prompts).toHaveLength(5);
    // X's third prompt: one user message (no earlier turn), the last move, the board and the free cells.
    const third = prompts[4]!;
    expect(third.match(/We are playing tic-tac-toe/g)).toHaveLength(1);
    expect(third).toContain('Your opponent played [5].');
    expect(third).toContain('Available moves: [3] [6] [7] [8] [9]\nYour move:');
    expect(third).not.toContain('[1]<');
    expect(ticTacToeBoardPrompt('O', { cells: ['X', ...new Array<null>(8).fill(null)], lastMove: 0 })).toBe(
      'We are playing tic-tac-toe. You are O. Reply with the number of an empty cell in brackets, e.g. [5].\n' +
        'Your opponent played [1].\nX | 2 | 3\n---------\n4 | 5 | 6\n---------\n7 | 8 | 9\n' +
        'Available moves: [2] [3] [4] [5] [6] [7] [8] [9]\nYour move:',
    );
  });

  it('an unreadable move ends the game with the illegal-move penalty', async () => {
    const policy = new ScriptedPolicy([reply('hello')]);
    const group = await doGroupRollout(new TicTacToeGroupBuilder(renderer, 1, 'self'), policy);
    expect(group.getTotalRewards()).toEqual([ILLEGAL_MOVE_REWARD, 0]);
  });

  it('against a random opponent the game reaches an end', async () => {
    const policy = new ScriptedPolicy([1, 2, 3, 4, 5, 6, 7, 8, 9].map((k) => reply(`[${k}]`)));
    const group = await doGroupRollout(new TicTacToeGroupBuilder(renderer, 2, 'random', 3), policy);
    expect(group.trajectories_G).toHaveLength(2);
    for (const r of group.getTotalRewards()) expect([1, 0, -1, ILLEGAL_MOVE_REWARD]).toContain(r);
  });
});
