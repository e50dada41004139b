import { describe, expect, it } from 'vitest';
import { executeToolCall, toolMap } from './execute.js';
import { parseSearchCollection, searchTool } from './search-tool.js';

const JSONL = [
  '{"id": "1", "title": "Mount Vell", "text": "Mount Vell is the highest peak of Orland."}',
  '',
  '{"id": 2, "title": "Orland", "text": "Orland is a river country; its capital is Tesk."}',
].join('\n');

describe('search collection and tool', () => {
  it('parses a JSONL collection, numeric ids as strings', () => {
    expect(parseSearchCollection(JSONL).map((d) => d.id)).toEqual(['1', '2']);
  });

  it('names the source, line and field of a bad row', () => {
    expect(() => parseSearchCollection('{"id":"a","text":"x"}\n{"id":"b"}', 'docs.jsonl')).toThrow(
      /docs\.jsonl:2, field "text"/,
    );
    expect(() => parseSearchCollection('{"id":"a","text":"x"}\nnope', 'docs.jsonl')).toThrow(/docs\.jsonl:2: not JSON/);
    expect(() => parseSearchCollection('{"id":"a","text":"x"}\n{"id":"a","text":"y"}', 'd.jsonl')).toThrow(
      /duplicate id "a" \(first on line 1\)/,
    );
  });

  it('answers search(query, k) with numbered hits, best first', async () => {
    const tool = searchTool(parseSearchCollection(JSONL));
    const r = await executeToolCall(toolMap([tool]), {
      type: 'function',
      function: { name: 'search', arguments: '{"query": "capital of Orland", "k": 1}' },
    });
    expect(r.message.content).toBe('[1] Orland\nOrland is a river country; its capital is Tesk.');
    expect(r.metrics).toEqual({ search_hits: 1 });
    const bad = await executeToolCall(toolMap([tool]), {
      type: 'function',
      function: { name: 'search', arguments: '{"query": "x", "k": 50}' },
    });
    expect(bad.error).toBe('invalid_arguments');
  });
});
