/**
 * Renders a chat conversation for transcripts (upstream `logtree` `ConversationFormatter`): one role-coloured block
 * per message, thinking parts collapsed, tool calls shown with their arguments. All content is escaped.
 */
import { escapeHtml } from './internal/html.js';
import type { HtmlFormatter } from './logtree.js';

/** The message shape this formatter reads; `@cookbook/core`'s `Message` fits it. */
export interface FormattableMessage {
  role: string;
  content: string | ReadonlyArray<{ type: string; text?: string; thinking?: string }>;
  tool_calls?: ReadonlyArray<{ id?: string; function: { name: string; arguments: string } }>;
  unparsed_tool_calls?: ReadonlyArray<{ raw_text: string; error: string }>;
  name?: string;
  tool_call_id?: string;
}

const CSS = `
.lt-conv { display: flex; flex-direction: column; gap: 0.4em; margin: 0.5em 0; }
.lt-msg { border-radius: 6px; padding: 0.4em 0.7em; border: 1px solid #d0d7de; background: #f6f8fa; }
.lt-msg-role { font-weight: 600; font-size: 0.8em; text-transform: uppercase; letter-spacing: 0.04em; color: #57606a; }
.lt-msg-body { white-space: pre-wrap; word-wrap: break-word; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.88em; }
.lt-msg-system { background: #f3f0ff; border-color: #c8b6ff; }
.lt-msg-user { background: #eaf4ff; border-color: #9cc9ff; }
.lt-msg-assistant { background: #eefbef; border-color: #95d5a0; }
.lt-msg-tool { background: #fff8e6; border-color: #f0c96b; }
.lt-thinking { margin: 0.3em 0; color: #6e7781; }
.lt-thinking > summary { cursor: pointer; font-style: italic; }
.lt-toolcall { margin-top: 0.3em; padding: 0.3em 0.5em; background: #fff; border: 1px dashed #d0d7de; border-radius: 4px; }
.lt-toolcall-error { border-color: #ff8182; }
`;

const KNOWN_ROLES = new Set(['system', 'user', 'assistant', 'tool']);

function renderContent(content: FormattableMessage['content']): string {
  if (typeof content === 'string') return `<div class="lt-msg-body">${escapeHtml(content)}</div>`;
  return content
    .map((part) => {
      if (part.type === 'thinking') {
        return `<details class="lt-thinking"><summary>thinking</summary><div class="lt-msg-body">${escapeHtml(part.thinking ?? '')}</div></details>`;
      }
      if (part.type === 'text') return `<div class="lt-msg-body">${escapeHtml(part.text ?? '')}</div>`;
      return `<div class="lt-msg-body"><em>[${escapeHtml(part.type)}]</em></div>`;
    })
    .join('');
}

/** Renders one message to HTML. */
export function formatMessageHtml(message: FormattableMessage): string {
  const role = KNOWN_ROLES.has(message.role) ? message.role : 'other';
  const label = [message.role, message.name, message.tool_call_id ? `→ ${message.tool_call_id}` : undefined]
    .filter(Boolean)
    .join(' ');
  const calls = (message.tool_calls ?? [])
    .map(
      (call) =>
        `<div class="lt-toolcall"><span class="lt-msg-role">tool call${call.id ? ` ${escapeHtml(call.id)}` : ''}</span><div class="lt-msg-body">${escapeHtml(call.function.name)}(${escapeHtml(call.function.arguments)})</div></div>`,
    )
    .join('');
  const unparsed = (message.unparsed_tool_calls ?? [])
    .map(
      (call) =>
        `<div class="lt-toolcall lt-toolcall-error"><span class="lt-msg-role">unparsed tool call: ${escapeHtml(call.error)}</span><div class="lt-msg-body">${escapeHtml(call.raw_text)}</div></div>`,
    )
    .join('');
  return `<div class="lt-msg lt-msg-${role}"><div class="lt-msg-role">${escapeHtml(label)}</div>${renderContent(message.content)}${calls}${unparsed}</div>`;
}

/** An {@link HtmlFormatter} for a list of messages; add it with `transcript.add(...)` or `logFormatter(...)`. */
export class ConversationFormatter implements HtmlFormatter {
  readonly cssKey = 'conversation';
  readonly css = CSS;
  readonly #messages: readonly FormattableMessage[];

  constructor(messages: readonly FormattableMessage[]) {
    this.#messages = messages;
  }

  toHtml(): string {
    return `<div class="lt-conv">${this.#messages.map(formatMessageHtml).join('')}</div>`;
  }
}
