/**
 * The rollout log of a tool-using episode: a real rollout of the lookup task (the `tool_use` recipe's env, renderer
 * and tool) with a policy that replies with fixed text, written by the RL loop's writer. Each trajectory's line
 * carries its turns as structured messages (upstream's `message_to_jsonable` shape): the tool call with its name and
 * arguments, the tool's result, the answer. (The bounds of a long conversation: `@cookbook/logging`'s tests.)
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, TokenCompleter } from '@cookbook/core';
import { getRenderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { LookupToolDataset } from './envs/lookup-tool-env.js';
import { rolloutSummaries, writeRolloutSummaries } from './rollout-summaries.js';
import { doGroupRollout } from './rollouts.js';

const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));

/** A policy that sends `replies` in turn (the last one again if the episode goes on). */
function replies(...texts: string[]): TokenCompleter {
  let i = 0;
  return {
    async complete() {
      const text = texts[Math.min(i++, texts.length - 1)]!;
      return { tokens: renderer.tokenizer.encode(text), maybeLogprobs: [] };
    },
  };
}

describe('rollout summaries of a tool-using env', () => {
  it('log each turn as a message: the tool call (name, arguments), its result, the answer', async () => {
    const [builder] = new LookupToolDataset(renderer, 1, 1, 1, 3, { declareTools: false }).getBatch(0);
    const [demo] = (await builder!.demonstrations!()) as Message[][];
    const key = JSON.parse(demo!.find((m) => m.tool_calls)!.tool_calls![0]!.function.arguments).key as string;
    const value = demo!.find((m) => m.role === 'tool')!.content as string;
    const call = `<tool_call>\n{"name": "lookup", "arguments": {"key": "${key}"}}\n</tool_call><|im_end|>`;
    const group = await doGroupRollout(builder!, replies(call, `${value}<|im_end|>`));
    const [line] = rolloutSummaries([group], { split: 'train', iteration: 0, tags_P: ['lookup'] });
    expect(line!.steps).toHaveLength(2);
    expect(line!.total_reward).toBe(1);
    const messages = line!.messages!;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(messages[0]!.content).toMatch(new RegExp(`value of ${key}\\?`));
    const toolCall = messages[1]!.tool_calls![0]!;
    expect(toolCall.type).toBe('function');
    expect(toolCall.function.name).toBe('lookup');
    expect(JSON.parse(toolCall.function.arguments)).toEqual({ key });
    expect(messages[2]!.content).toBe(value);
    if (toolCall.id !== undefined) expect(messages[2]!.tool_call_id).toBe(toolCall.id);
    expect(messages[3]).toEqual({ role: 'assistant', content: value });

    // Written by the loop's writer, the line reads back the same (JSON round trip: no class instances, no bytes).
    const path = join(mkdtempSync(join(tmpdir(), 'rollout-summaries-')), 'train_rollout_summaries.jsonl');
    writeRolloutSummaries(path, [line!]);
    const back = JSON.parse(readFileSync(path, 'utf8').trim()) as typeof line;
    expect(back!.messages).toEqual(messages);
  });

  it('log a call the tool refuses as the error the model read, turn after turn', async () => {
    const [builder] = new LookupToolDataset(renderer, 1, 1, 1, 5, {
      declareTools: false,
      limits: { maxTurns: 3 },
    }).getBatch(0);
    const hostile = '<img src=x onerror=alert(1)>';
    const bad = `<tool_call>\n{"name": "lookup", "arguments": {"key": "${hostile}"}}\n</tool_call><|im_end|>`;
    const group = await doGroupRollout(builder!, replies(bad));
    const [line] = rolloutSummaries([group], { split: 'train', iteration: 0 });
    expect(line!.steps).toHaveLength(3);
    expect(line!.messages!.map((m) => m.role)).toEqual(['user', ...Array(3).fill(['assistant', 'tool']).flat()]);
    expect(line!.messages_total).toBeUndefined();
    const result = line!.messages!.find((m) => m.role === 'tool')!;
    expect(result.content).toContain(hostile);
  });
});
