import { describe, expect, it } from 'vitest';
import { detectUnterminatedToolBlock, parseContentBlocks } from './content-blocks.js';

describe('parseContentBlocks', () => {
  it('returns null without tags', () => {
    expect(parseContentBlocks('plain text')).toBeNull();
  });
  it('splits think and tool_call blocks, keeps outside text verbatim, drops empty thinks', () => {
    const r = parseContentBlocks(
      '<think></think>A <think>r</think> B\n<tool_call>\n{"name": "f", "arguments": {"x": [1, "é"]}, "id": "c1"}\n</tool_call>',
    );
    expect(r).toEqual({
      parts: [
        { type: 'text', text: 'A ' },
        { type: 'thinking', thinking: 'r' },
        { type: 'text', text: ' B\n' },
      ],
      toolCalls: [{ type: 'function', id: 'c1', function: { name: 'f', arguments: '{"x": [1, "é"]}' } }],
      unparsedToolCalls: [],
    });
  });
  it.each([
    ['{bad', /^Invalid JSON/],
    ['{"arguments": {}}', /'name'/],
    ['{"name": "f", "arguments": []}', /'arguments'/],
    ['{"name": "f", "arguments": {}, "id": 3}', /'id'/],
  ])('rejects %s', (payload, error) => {
    const r = parseContentBlocks(`<tool_call>${payload}</tool_call>`);
    expect(r?.toolCalls).toEqual([]);
    expect(r?.unparsedToolCalls[0]?.error).toMatch(error);
    expect(r?.unparsedToolCalls[0]?.raw_text).toBe(`<tool_call>${payload}</tool_call>`);
  });
  it('detects unterminated tool blocks', () => {
    expect(detectUnterminatedToolBlock('<tool_call>{}</tool_call>')).toBeNull();
    expect(detectUnterminatedToolBlock('x <tool_call>{"na')).toEqual({
      raw_text: '<tool_call>{"na',
      error: 'unterminated tool block: 1 <tool_call> but 0 </tool_call>',
    });
  });
});
