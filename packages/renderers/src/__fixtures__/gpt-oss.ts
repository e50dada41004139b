/**
 * gpt-oss's official chat template (`gpt-oss-20b.chat_template.jinja`, source in TEMPLATES.md) and its documented
 * variant: the template with each deliberate difference of the gpt-oss renderers patched in (they follow upstream's
 * Harmony renderer, see `gpt-oss-renderer.ts`), each patched branch writing its mark where its output differs from the
 * official branch's (`documentedMark`, `internal/conformance.ts`).
 */
import { readFileSync } from 'node:fs';
import { type DeliberateReason, documentedMark } from '../internal/conformance.js';
import { replaceOnce } from './kimi/templates.js';

const FILE = 'gpt-oss-20b.chat_template.jinja';

/** The official template, byte for byte. */
export const GPT_OSS_TEMPLATE = readFileSync(new URL(`./${FILE}`, import.meta.url), 'utf8');

/** The documented differences, in mark order. */
export const GPT_OSS_REASONS: readonly DeliberateReason[] = [
  'earlier reasoning kept',
  'text beside a tool call is a commentary preamble',
  'tool call header as sampled',
  'tool results as written',
];

const mark = (reason: DeliberateReason): string => `{{- "${documentedMark(GPT_OSS_REASONS.indexOf(reason))}" }}`;
const EARLIER = mark('earlier reasoning kept');

/** One documented difference as a patch of the official template's text (`from` occurs once). */
interface Patch {
  from: string;
  to: string;
}

const PATCHES: readonly Patch[] = [
  // A tool call's reasoning stays in the analysis channel even when a later final answer exists (the template drops
  // it then), and its text is a commentary preamble (the template writes text as analysis, and refuses both).
  {
    from: `            {%- if message.content and message.thinking %}
                {{- raise_exception("Cannot pass both content and thinking in an assistant message with tool calls! Put the analysis message in one or the other, but not both.") }}
            {%- elif message.content and not future_final_message.found %}
                {{- "<|start|>assistant<|channel|>analysis<|message|>" + message.content + "<|end|>" }}
            {%- elif message.thinking and not future_final_message.found %}
                {{- "<|start|>assistant<|channel|>analysis<|message|>" + message.thinking + "<|end|>" }}
            {%- endif %}`,
    to: `            {%- if message.thinking %}
                {{- "<|start|>assistant<|channel|>analysis<|message|>" + message.thinking + "<|end|>" }}
                {%- if future_final_message.found %}${EARLIER}{%- endif %}
            {%- endif %}
            {%- if message.content %}
                {{- "<|start|>assistant<|channel|>commentary<|message|>" + message.content + "<|end|>" }}
                ${mark('text beside a tool call is a commentary preamble')}
            {%- endif %}`,
  },
  // The call's content type as Harmony writes and the model samples it: \` <|constrain|>json\`, not \` json\`.
  {
    from: `{{- (tool_call.content_type if tool_call.content_type is defined else "json") + "<|message|>" }}`,
    to: `{{- "<|constrain|>" + (tool_call.content_type if tool_call.content_type is defined else "json") + "<|message|>" }}
            ${mark('tool call header as sampled')}`,
  },
  // Earlier final answers keep their reasoning (the template drops it).
  {
    from: '{#- CoT is dropped during all previous turns, so we never render it for inference #}',
    to: `{%- if message.thinking %}
                {{- "<|start|>assistant<|channel|>analysis<|message|>" + message.thinking + "<|end|>" }}
                ${EARLIER}
            {%- endif %}`,
  },
  // Tool results as the tool wrote them, not JSON-quoted.
  {
    from: `{{- " to=assistant<|channel|>commentary<|message|>" + message.content|tojson + "<|end|>" }}`,
    to: `{{- " to=assistant<|channel|>commentary<|message|>" + message.content + "<|end|>" }}
        ${mark('tool results as written')}`,
  },
];

const patched = (patches: readonly Patch[]): string =>
  patches.reduce((t, p) => replaceOnce(t, p.from, p.to, FILE), GPT_OSS_TEMPLATE);

/**
 * The official template with the renderers' documented differences patched in (`template`), and with each patch
 * alone (`each`, for the check that a patch changes nothing where it marks nothing).
 */
export function gptOssDocumentedTemplates(): { template: string; each: string[] } {
  return { template: patched(PATCHES), each: PATCHES.map((p) => patched([p])) };
}

const SYSTEM = /^<\|start\|>system<\|message\|>([^]*?)<\|end\|>/;
const ROUTING = "Calls to these tools must go to the commentary channel: 'functions'.";

/**
 * `gpt_oss_no_sysprompt`'s documented difference, on the template's text: no system message (the template always
 * writes one); with tools declared, the tool-routing line the template puts in it is a system message of its own.
 */
export function withoutSystemMessage(text: string): string {
  const m = SYSTEM.exec(text);
  if (m === null) throw new Error(`${FILE}: the rendered text does not start with the system message`);
  const routing = m[1]!.endsWith(`\n${ROUTING}`) ? `<|start|>system<|message|>${ROUTING}<|end|>` : '';
  return routing + text.slice(m[0].length);
}
