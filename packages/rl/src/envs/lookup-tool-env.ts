/**
 * A tool-use task a model cannot solve without its tool: each problem holds a fresh random table of keys → digits, the
 * user asks for one key's value, and only the `lookup(key)` tool can read the table. Reward 1 when the final answer's
 * last integer is the value, else 0. Small enough for the offline stand-in model. Its demonstrations warm-start a model
 * that has never seen the tool format: a share of them (`demoToolRate`) call the tool with the asked key and copy the
 * result, the others answer at once with a guessed digit (right by chance only), so the warm-started policy calls the
 * tool in about that share of episodes and RL's climb is learning to call it. The metric `called_tool` is the share
 * of episodes that called the tool at least once.
 */
import { ConfigError, deriveSeed, getTextContent, type Message, Mulberry32Rng } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import { defineTool, type Tool, toolSpecs } from '@cookbook/tools';
import type { EnvGroupBuilder, RLDataset, RolloutLimits } from '@cookbook/training';
import { z } from 'zod';
import { AgentToolEnv, AgentToolGroupBuilder } from './agent-tool-env.js';
import { lastInteger } from './math-env.js';

/** The keys a table may hold. */
export const LOOKUP_KEYS = ['apple', 'banana', 'cherry', 'grape', 'lemon', 'mango', 'peach', 'plum'] as const;

/** One problem: the table and the asked key. */
export interface LookupProblem {
  table: Record<string, number>;
  key: string;
}

/** Options of {@link LookupToolDataset}. */
export interface LookupToolOptions {
  /** How many keys a table holds (the first n of {@link LOOKUP_KEYS}). Default 4. */
  numKeys?: number;
  /** Values are digits in [0, maxValue]. Default 9. */
  maxValue?: number;
  /** Rollout limits of each episode. Default 3 turns. */
  limits?: RolloutLimits;
  /** Declare the tool in the prompt (see `AgentToolEnvOptions.declareTools`). Default true. */
  declareTools?: boolean;
  /** Leave malformed replies out of the loss (`AgentToolEnvOptions.parseError.mask`). Default false. */
  maskParseErrors?: boolean;
  /**
   * Share of the demonstrations that call the tool, in [0, 1]. Default 1. Those look up the asked key and answer with
   * the result; the others answer at once, without the tool, with a seeded uniform digit in [0, maxValue] (right by
   * chance only). A warm start below 1 leaves RL an honest behaviour to climb: calling the tool.
   */
  demoToolRate?: number;
}

/** A seeded problem; `key` (one of the table's keys) fixes the asked key, else it is drawn. */
export function lookupProblem(seed: number, numKeys = 4, maxValue = 9, key?: string): LookupProblem {
  if (!Number.isInteger(numKeys) || numKeys < 1 || numKeys > LOOKUP_KEYS.length) {
    throw new ConfigError(`lookup num_keys must be in [1, ${LOOKUP_KEYS.length}], got ${numKeys}`, { key: 'num_keys' });
  }
  if (!Number.isInteger(maxValue) || maxValue < 1) {
    throw new ConfigError(`lookup max_value must be a positive integer, got ${maxValue}`, { key: 'max_value' });
  }
  const rng = new Mulberry32Rng(seed);
  const keys = LOOKUP_KEYS.slice(0, numKeys);
  const table: Record<string, number> = {};
  for (const k of keys) table[k] = rng.int(0, maxValue);
  const drawn = rng.choice(keys);
  if (key !== undefined && !keys.includes(key as (typeof keys)[number])) {
    throw new ConfigError(`lookup key "${key}" is not one of the table's keys (${keys.join(', ')})`, { key: 'key' });
  }
  return { table, key: key ?? drawn };
}

/** The `lookup` tool over one problem's table. */
export function lookupTool(problem: LookupProblem): Tool {
  return defineTool({
    name: 'lookup',
    description: 'Look up the value stored under a key',
    parameters: z.object({ key: z.string().describe('The key to look up') }),
    run: ({ key }) => {
      const value = problem.table[key.trim().toLowerCase()];
      return value === undefined
        ? `No value is stored under "${key}". Keys: ${Object.keys(problem.table).join(', ')}.`
        : String(value);
    },
  });
}

/** The user's question. */
export function lookupQuestion(problem: LookupProblem): string {
  return `What is the value of ${problem.key}? Use the lookup tool, then reply with just the number.`;
}

/** The agent env of one problem. */
export function lookupEnv(
  renderer: Renderer,
  problem: LookupProblem,
  limits: RolloutLimits = {},
  declareTools = true,
  maskParseErrors = false,
): AgentToolEnv {
  return new AgentToolEnv({
    renderer,
    declareTools,
    tools: [lookupTool(problem)],
    messages: [{ role: 'user', content: lookupQuestion(problem) }],
    limits: { maxTurns: 3, ...limits },
    parseError: { mask: maskParseErrors },
    reward: ({ finalAnswer, toolCalls }) => {
      const correct =
        finalAnswer !== undefined && lastInteger(getTextContent(finalAnswer)) === problem.table[problem.key];
      return { reward: correct ? 1 : 0, metrics: { correct: correct ? 1 : 0, called_tool: toolCalls > 0 ? 1 : 0 } };
    },
  });
}

/**
 * The expert's conversation: the tool declaration, the question, the call with the asked key, the result and the
 * answer. With `guess` (a digit) the expert answers at once with it instead, without calling the tool.
 */
export function lookupDemonstration(
  renderer: Renderer,
  problem: LookupProblem,
  declareTools = true,
  guess?: number,
): Message[] {
  const tool = lookupTool(problem);
  const value = problem.table[problem.key];
  if (value === undefined) {
    throw new ConfigError(`lookup demonstration: key "${problem.key}" is not in the table`, { key: 'key' });
  }
  const prefix = declareTools ? renderer.createConversationPrefixWithTools(toolSpecs([tool])) : [];
  const question: Message[] = [
    ...prefix.map((m) => ({ ...m, trainable: false })),
    { role: 'user', content: lookupQuestion(problem), trainable: false },
  ];
  if (guess !== undefined) return [...question, { role: 'assistant', content: String(guess), trainable: true }];
  const callKey = problem.key;
  return [
    ...question,
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        { type: 'function', function: { name: 'lookup', arguments: `{"key": ${JSON.stringify(callKey)}}` } },
      ],
      trainable: true,
    },
    { role: 'tool', content: String(value), name: 'lookup', trainable: false },
    { role: 'assistant', content: String(value), trainable: true },
  ];
}

/** Batches of lookup groups (one seeded problem per group). */
export class LookupToolDataset implements RLDataset {
  constructor(
    readonly renderer: Renderer,
    readonly groupsPerBatch: number,
    readonly groupSize: number,
    readonly length: number,
    readonly seed: number,
    readonly options: LookupToolOptions = {},
  ) {
    const rate = options.demoToolRate ?? 1;
    if (!(rate >= 0 && rate <= 1)) {
      throw new ConfigError(`lookup demoToolRate must be in [0, 1], got ${rate}`, { key: 'demoToolRate' });
    }
  }

  /**
   * Batch `index`: one seeded table per group; the asked keys are balanced (every key once per `numKeys` groups, in
   * a seeded order), so a step's reward does not swing with which keys happened to be asked.
   */
  getBatch(index: number): EnvGroupBuilder[] {
    const numKeys = this.options.numKeys ?? 4;
    const order = new Mulberry32Rng(deriveSeed(this.seed, index, 2)).shuffle(LOOKUP_KEYS.slice(0, numKeys));
    return Array.from({ length: this.groupsPerBatch }, (_, g) => {
      const problem = lookupProblem(
        deriveSeed(this.seed, index, g),
        numKeys,
        this.options.maxValue ?? 9,
        order[g % numKeys],
      );
      const declare = this.options.declareTools ?? true;
      const mask = this.options.maskParseErrors ?? false;
      const makeEnv = () => lookupEnv(this.renderer, problem, this.options.limits, declare, mask);
      return new AgentToolGroupBuilder(makeEnv, this.groupSize, {
        tag: 'lookup',
        demonstrations: async () => [lookupDemonstration(this.renderer, problem, declare, this.demoGuess(index, g))],
      });
    });
  }

  /**
   * The direct guess of the expert of group `g` of batch `index`: undefined (it calls the tool) at `demoToolRate`,
   * else a uniform digit in [0, maxValue].
   */
  private demoGuess(index: number, g: number): number | undefined {
    const rng = new Mulberry32Rng(deriveSeed(this.seed, index, g, 1));
    if (rng.next() < (this.options.demoToolRate ?? 1)) return undefined;
    return rng.int(0, this.options.maxValue ?? 9);
  }
}
