/**
 * Rollout limits on the multiplayer games (`cookbook multiplayer … max_episode_turns=… max_total_tokens=…`): each
 * game family is cut by a limit through rl's rollout code, and the cut is reported in the last step's metrics and
 * logs (rollout summaries, transcripts). Self-play seats share a game: cutting one ends the game for the other.
 */

import { getRenderer, type Renderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { limitDataset, withRolloutLimits } from '@cookbook/training';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedPolicy } from '../__fixtures__/fakes.js';
import { rolloutSummaries } from '../rollout-summaries.js';
import { doGroupRollout } from '../rollouts.js';
import { GuessNumberDataset } from './guess-number-env.js';
import { TicTacToeGroupBuilder } from './tic-tac-toe-env.js';
import { RuleBasedAnswerer, TwentyQuestionsGroupBuilder } from './twenty-questions-env.js';

let renderer: Renderer;
let reply: (text: string) => number[];

beforeAll(() => {
  const tok = getTokenizer('local/qwen3-tiny');
  renderer = getRenderer('qwen3_disable_thinking', tok);
  const imEnd = tok.convertTokenToId('<|im_end|>')!;
  reply = (text) => [...tok.encode(text), imEnd];
});

describe('rollout limits on the multiplayer games', () => {
  it('guess_number: max turns cuts a game the rules would let go on, and the summary says why', async () => {
    // The game allows 6 guesses; the limit allows 2. Guessing 0 for a secret in [1, 7] never wins.
    const dataset = limitDataset(new GuessNumberDataset(renderer, 1, 2, 1, 0, { low: 1, high: 7, maxTurns: 6 }), {
      maxTurns: 2,
    });
    const group = await doGroupRollout(dataset.getBatch(0)[0]!, new ScriptedPolicy([reply('0')]));
    for (const t of group.trajectories_G) {
      expect(t.transitions).toHaveLength(2);
      expect(t.transitions.at(-1)!.metrics).toMatchObject({ truncated: 1, 'truncated/max_turns': 1 });
      expect(t.transitions.at(-1)!.logs).toMatchObject({ truncation: 'max_turns' });
    }
    const summaries = rolloutSummaries([group], { split: 'train', iteration: 0 });
    expect(summaries.map((s) => s.steps.at(-1)!.logs.truncation)).toEqual(['max_turns', 'max_turns']);
    const free = await doGroupRollout(
      new GuessNumberDataset(renderer, 1, 1, 1, 0, { low: 1, high: 7, maxTurns: 6 }).getBatch(0)[0]!,
      new ScriptedPolicy([reply('0')]),
    );
    expect(free.trajectories_G[0]!.transitions).toHaveLength(6);
  });

  it('twenty_questions: the token budget cuts the episode once the conversation reaches it', async () => {
    const builder = withRolloutLimits(
      new TwentyQuestionsGroupBuilder('dog', renderer, new RuleBasedAnswerer(), 1, { maxQuestions: 10 }),
      { maxTotalTokens: 120 },
    );
    const group = await doGroupRollout(builder, new ScriptedPolicy([reply('Is it a pet?')]));
    const t = group.trajectories_G[0]!;
    expect(t.transitions.length).toBeGreaterThan(1);
    expect(t.transitions.length).toBeLessThan(10);
    const last = t.transitions.at(-1)!;
    expect(last.metrics).toMatchObject({ truncated: 1, 'truncated/max_tokens': 1, 'truncated/max_turns': 0 });
    expect(last.logs).toMatchObject({ truncation: 'max_tokens' });
    // The turn before the cut stayed under the budget.
    expect(t.transitions.at(-2)!.ob.length + t.transitions.at(-2)!.ac.tokens.length).toBeLessThan(120);
  });

  it('tic_tac_toe self-play: the seat that reaches the limit ends the game for both (no seat is left waiting)', async () => {
    // X plays 1, 2, …; O plays 4, 5, …: nobody has won after X's second move, when X's limit (2 turns) cuts it.
    const policy = new ScriptedPolicy([reply('[1]'), reply('[4]'), reply('[2]'), reply('[5]'), reply('[9]')]);
    const group = await doGroupRollout(
      withRolloutLimits(new TicTacToeGroupBuilder(renderer, 1, 'self'), { maxTurns: 2 }),
      policy,
    );
    const [x, o] = group.trajectories_G;
    expect(x!.transitions).toHaveLength(2);
    expect(x!.transitions.at(-1)!.logs).toMatchObject({ truncation: 'max_turns' });
    expect(x!.transitions.at(-1)!.metrics).toMatchObject({ truncated: 1, 'truncated/max_turns': 1 });
    // O had played twice and was waiting for X's third move: the game ends for O too, reported the same way.
    expect(o!.transitions).toHaveLength(2);
    expect(o!.transitions.at(-1)!.episodeDone).toBe(true);
    expect(o!.transitions.at(-1)!.logs).toMatchObject({ truncation: 'max_turns' });
    expect(o!.transitions.at(-1)!.metrics).toMatchObject({ truncated: 1, win: 0, loss: 0, draw: 0 });
    expect(group.getTotalRewards()).toEqual([0, 0]);
    expect(policy.calls).toHaveLength(4);
    // Each seat's turns are logged as messages: its prompts and its moves, in order.
    const [lx, lo] = rolloutSummaries([group], { split: 'train', iteration: 0 });
    for (const line of [lx!, lo!]) {
      expect(line.messages!.filter((m) => m.role === 'assistant')).toHaveLength(2);
      expect(line.messages!.map((m) => m.role).slice(0, 2)).toEqual(['user', 'assistant']);
    }
  });
});
