/**
 * The `search_tool` / `search_tool_no_int_reward` wrappers, checked against GEM's `SearchTool` and `ToolEnvWrapper`
 * (`gem/tools/search_tool.py`, `gem/tools/tool_env_wrapper.py`, `gem/wrappers/wrapper_factory.py` at 4069f2f): the
 * first `<search>` tag across lines is the call, its stripped text the query, the action recorded is the response up
 * to the tag's end; results are `Doc i(Title: …) …` lines; `search_tool` pays 0.3 per call and nothing for success,
 * `search_tool_no_int_reward` pays 0; five calls per episode, the fifth observation ends with the max-use notice, and
 * later responses go to the env.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, DataError } from '@cookbook/core';
import { Bm25Index } from '@cookbook/tools';
import { describe, expect, it } from 'vitest';
import { QaEnv } from '../dataset/dataset-env.js';
import { applyWrappers, getWrapperFns } from './factory.js';
import { formatGemSearchResult, GemSearchTool } from './search-tool.js';

const DOCS = [
  { id: 'a', title: 'Paris', text: 'Paris is the capital of France.' },
  { id: 'b', title: 'Berlin', text: 'Berlin is the capital of Germany.\nIt lies on the Spree.' },
  { id: 'c', text: 'Rome\nRome is the capital of Italy.' },
  { id: 'd', title: 'Madrid', text: 'Madrid is the capital of Spain.' },
];
const index = new Bm25Index(DOCS);
const question = () => new QaEnv({ dataset: [{ question: 'What is the capital of Germany?', answers: ['Berlin'] }] });

describe('GemSearchTool', () => {
  const tool = new GemSearchTool(index);

  it('takes the first <search> call across lines, strips the query, cuts the action after the tag', () => {
    const action = 'I need a fact.\n<search>\n capital  of\nGermany \t</search> then <search>Rome</search>';
    expect(tool.parse(action)).toEqual({
      code: 'capital  of\nGermany',
      parsedAction: 'I need a fact.\n<search>\n capital  of\nGermany \t</search>',
    });
    expect(tool.parse('<answer>Berlin</answer>')).toBeUndefined();
    expect(tool.parse('<search>unclosed')).toBeUndefined();
    // Python's strip() keeps U+FEFF (not whitespace to Python), JavaScript's trim() would drop it.
    expect(tool.parse('<search>\u00a0x\ufeff</search>')?.code).toBe('x\ufeff');
  });

  it('answers with GEM’s "Doc i(Title: …) …" lines: title, else the first line of the text', async () => {
    const r = await tool.execute({ code: 'capital of Germany', parsedAction: 'p' });
    expect(r.error).toBe(false);
    expect(r.parsedAction).toBe('p');
    const lines = r.observation.split('\n');
    expect(lines[0]).toBe('Doc 1(Title: Berlin) Berlin is the capital of Germany.');
    expect(lines[1]).toBe('It lies on the Spree.');
    expect(r.observation.endsWith('\n')).toBe(true);
    expect(r.observation.match(/^Doc \d\(Title: /gm)).toHaveLength(3);
    expect(formatGemSearchResult([DOCS[2]!])).toBe('Doc 1(Title: Rome) Rome is the capital of Italy.\n');
    // Nothing matches (or an empty query): an empty observation, as GEM joins an empty result list.
    expect((await tool.execute({ code: 'zebra', parsedAction: '' })).observation).toBe('');
    expect((await tool.execute({ code: '', parsedAction: '' })).observation).toBe('');
  });

  it('returns topk documents', async () => {
    const one = new GemSearchTool(index, { topk: 1 });
    expect((await one.execute({ code: 'capital', parsedAction: '' })).observation.split('Doc ').length - 1).toBe(1);
    expect(() => new GemSearchTool(index, { topk: 0 })).toThrow(ConfigError);
  });
});

describe('search_tool wrappers', () => {
  it('search_tool pays 0.3 per call, keeps the episode going, then the answer goes to the env', async () => {
    const env = applyWrappers(question(), getWrapperFns('search_tool', { search: { index } }));
    const r0 = await env.reset(0);
    expect(r0.observation).toMatch(/^Answer the given question[\s\S]*Germany\?\n\nYou can search a collection/);
    expect(r0.info).toMatchObject({ tool_use_counter: 0, tool_success_counter: 0, use_tool: false });
    const s1 = await env.step('<think>look up</think><search>capital of Germany</search>');
    expect(s1).toMatchObject({ reward: 0.3, terminated: false, truncated: false });
    expect(s1.observation.startsWith('Doc 1(Title: Berlin) ')).toBe(true);
    expect(s1.info).toMatchObject({
      parsed_action: '<think>look up</think><search>capital of Germany</search>',
      tool_type: 'search',
      use_tool: true,
      tool_use_counter: 1,
      tool_success_counter: 1,
    });
    const s2 = await env.step('<answer>Berlin</answer>');
    expect(s2).toMatchObject({ reward: 1, terminated: true });
    expect(s2.info).toMatchObject({ use_tool: false, tool_use_counter: 1 });
  });

  it('search_tool_no_int_reward pays 0; five calls, the fifth with the notice, the sixth goes to the env', async () => {
    const env = applyWrappers(question(), getWrapperFns('search_tool_no_int_reward', { search: { index } }));
    await env.reset(0);
    for (let i = 1; i <= 4; i++) {
      const s = await env.step('<search>Spain</search>');
      expect(s).toMatchObject({ reward: 0, terminated: false, info: { tool_use_counter: i } });
      expect(s.observation).toBe('Doc 1(Title: Madrid) Madrid is the capital of Spain.\n');
    }
    const fifth = await env.step('<search>Spain</search>');
    expect(fifth.observation).toBe(
      'Doc 1(Title: Madrid) Madrid is the capital of Spain.\n\n\nReached the maximum number of tool use. Please output final answer directly.',
    );
    const sixth = await env.step('<search>Spain</search> <answer>Madrid</answer>');
    expect(sixth).toMatchObject({ reward: 0, terminated: true, info: { use_tool: false, tool_use_counter: 5 } });
  });

  it('the observation wrappers record the action cut after the search tag', async () => {
    const env = applyWrappers(question(), getWrapperFns('search_tool,concat_with_action', { search: { index } }));
    await env.reset(0);
    const s = await env.step('<search>Germany</search> and some trailing text');
    expect(s.observation).toContain('\n<search>Germany</search>\nDoc 1(Title: Berlin)');
    expect(s.observation).not.toContain('trailing text');
  });

  it('reads a JSONL collection; no collection or a bad row is a clear error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gem-search-'));
    const good = join(dir, 'docs.jsonl');
    writeFileSync(good, `${DOCS.map((d) => JSON.stringify(d)).join('\n')}\n`);
    expect(getWrapperFns('search_tool', { search: { collectionPath: good } })).toHaveLength(1);
    expect(() => getWrapperFns('search_tool')).toThrow(ConfigError);
    expect(() => getWrapperFns('search_tool_no_int_reward')).toThrow(/set search_collection=<file\.jsonl>/);
    expect(() => getWrapperFns('search_tool', { search: { collectionPath: join(dir, 'none.jsonl') } })).toThrow(
      /search_collection: no file at .*none\.jsonl/,
    );
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"id": "a", "text": "x"}\n{"id": "b"}\n');
    expect(() => getWrapperFns('search_tool', { search: { collectionPath: bad } })).toThrow(DataError);
    expect(() => getWrapperFns('search_tool', { search: { collectionPath: bad } })).toThrow(/bad\.jsonl.*2|line 2/);
  });
});
