/**
 * The Kimi templates as the conformance suite and the parity tests run them (sources: SOURCES.md), and the tool
 * variables Kimi's `apply_chat_template` passes them.
 */
import type { ToolSpec } from '@cookbook/core';
import { kimiToolDeclaration } from '../../kimi-tool-declaration.js';
import { kimiTemplate } from './test-tokenizer.js';

/** `text` with its one occurrence of `from` replaced; throws when it occurs other than once (the copy changed). */
export function replaceOnce(text: string, from: string, to: string, file: string): string {
  const parts = text.split(from);
  if (parts.length !== 2) throw new Error(`${file}: expected ${JSON.stringify(from)} exactly once`);
  return parts.join(to);
}

/** K2-Thinking's copy, with the one documented change of the pinned Hub revision (compact tool JSON). */
export function kimiK2Source(): string {
  return replaceOnce(
    kimiTemplate('kimi-k2-thinking'),
    '{{ tools | tojson() }}',
    "{{ tools | tojson(separators=(',', ':')) }}",
    'kimi-k2-thinking.chat_template.jinja',
  );
}

/** K2.5's template. */
export function kimiK25Source(): string {
  return kimiTemplate('kimi-k2.5');
}

/** K2.5's template with K2.6's documented `preserve_thinking`: the history split is emptied. */
export function kimiK26Source(): string {
  const at = '{%- set hist_msgs = messages[:ns.last_non_tool_call_assistant_msg+1] -%}';
  return replaceOnce(
    kimiTemplate('kimi-k2.5'),
    at,
    `{%- if preserve_thinking -%}{%- set ns.last_non_tool_call_assistant_msg = -1 -%}{%- endif -%}\n${at}`,
    'kimi-k2.5.chat_template.jinja',
  );
}

/** Every object's keys sorted (K2's tokenizer sorts the tools' keys before the template sees them). */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, x]) => [k, sortKeys(x)]),
  );
}

const hfTools = (tools: readonly ToolSpec[]) => tools.map((t) => ({ type: 'function', function: t }));

/** K2's tool variables: `tools` with every key sorted. */
export function kimiK2ToolVariables(tools: readonly ToolSpec[]): Record<string, unknown> {
  return { tools: sortKeys(hfTools(tools)) };
}

/**
 * K2.5's / K2.6's tool variables: `tools` and the TypeScript declaration `tools_ts_str` (written by
 * `kimiToolDeclaration`, itself held to Moonshot's encoder output in `kimi-tool-declaration.test.ts`).
 */
export function kimiK25ToolVariables(tools: readonly ToolSpec[]): Record<string, unknown> {
  return { tools: hfTools(tools), tools_ts_str: kimiToolDeclaration(tools as ToolSpec[]) };
}
