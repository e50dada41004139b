import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFields } from '@cookbook/core';
import { startLocalTinker } from '@cookbook/local-tinker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { recipes } from '../recipes.js';
import { searchTool } from './search-tool.js';
import { loadQuestions, searchToolDataFiles, searchToolDataText } from './search-tool-data.js';
import { toolUse } from './tool-use.js';

const ours = [toolUse, searchTool];

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('tool recipes: config and data', () => {
  it('are registered, and every field has a description and a default', () => {
    const names = recipes.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(['tool_use', 'search_tool']));
    for (const recipe of ours) {
      for (const f of configFields(recipe.schema)) {
        expect(f.description, f.path).not.toBe('');
        expect(f.required, f.path).toBe(false);
      }
    }
  });

  it('ships the generated search collection exactly as the generator writes it', () => {
    const files = searchToolDataFiles();
    const want = searchToolDataText();
    expect(readFileSync(files.documents, 'utf8')).toBe(want.documents);
    expect(readFileSync(files.questions, 'utf8')).toBe(want.questions);
    expect(loadQuestions(files.questions).length).toBeGreaterThan(10);
  });
});

describe('tool recipes on the embedded service', () => {
  let server: { baseURL: string; close(): Promise<void> };
  const root = mkdtempSync(join(tmpdir(), 'tool-recipes-'));
  beforeAll(async () => {
    server = await startLocalTinker({ port: 0, root: join(root, 'service') });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('tool_use runs a step: tool calls, metrics, truncation reasons', async () => {
    const logPath = join(root, 'tool-use');
    const args = ['max_steps=1', 'groups_per_batch=1', 'group_size=2', 'lora_rank=4', 'warm_start=off', 'max_turns=2'];
    const c = capture();
    expect(await runCli(['tool_use', `log_path=${logPath}`, `base_url=${server.baseURL}`, ...args], ours, c.io)).toBe(
      0,
    );
    const [row] = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8').trim().split('\n');
    const m = JSON.parse(row!) as Record<string, number>;
    for (const key of [
      'env/all/episode/turns',
      'env/all/episode/tool_calls',
      'env/all/truncated',
      'env/all/end/final_answer',
    ]) {
      expect(m[key], key).toBeTypeOf('number');
    }
    expect(c.out.join('\n')).toMatch(/env\/all\/reward\/total: first third/);
    // The rollout log has each episode's turns as structured messages: the prompt, then one assistant message per
    // sampled turn (with its tool calls, if the reply made any), and one result per call.
    const lines = readFileSync(join(logPath, 'iteration_000000', 'train_rollout_summaries.jsonl'), 'utf8');
    for (const text of lines.trim().split('\n')) {
      const line = JSON.parse(text) as {
        steps: unknown[];
        messages: { role: string; tool_calls?: unknown[]; unparsed_tool_calls?: unknown[] }[];
      };
      expect(line.messages[0]!.role).toBe('user');
      const replies = line.messages.filter((m) => m.role === 'assistant');
      expect(replies).toHaveLength(line.steps.length);
      // A call the renderer could not parse is answered too (with the error the model reads next).
      const calls = replies.flatMap((m) => [...(m.tool_calls ?? []), ...(m.unparsed_tool_calls ?? [])]);
      expect(line.messages.filter((m) => m.role === 'tool')).toHaveLength(calls.length);
    }
  });

  it('search_tool runs offline end to end', async () => {
    const logPath = join(root, 'search-tool');
    const args = ['max_steps=1', 'groups_per_batch=1', 'group_size=2', 'lora_rank=4', 'max_tokens=16', 'max_turns=2'];
    const c = capture();
    expect(
      await runCli(['search_tool', `log_path=${logPath}`, `base_url=${server.baseURL}`, ...args], ours, c.io),
    ).toBe(0);
    const summaries = readFileSync(join(logPath, 'iteration_000000', 'train_rollout_summaries.jsonl'), 'utf8');
    const first = JSON.parse(summaries.split('\n')[0]!) as { steps: { logs: Record<string, string> }[] };
    expect(first.steps.at(-1)!.logs.end_reason).toMatch(/final_answer|parse_error|max_turns|max_tokens|tool_stop/);
  });
});
