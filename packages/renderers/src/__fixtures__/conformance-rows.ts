/** The conformance rows: every renderer name whose model's official template is shipped or committed. */
import { readFileSync } from 'node:fs';
import { KIMI_K25_IMAGE_RULE, QWEN3_VL_IMAGE_RULE } from '@cookbook/images';
import { getTokenizer, type Tokenizer } from '@cookbook/tokenizers';
import { type ConformanceSpec, TemplateConformance } from '../internal/conformance.js';
import type { ConversationFeatures } from '../internal/conversation-generator.js';
import { memoTokenizer } from '../internal/memo-tokenizer.js';
import { getRenderer, type RendererOptions } from '../registry.js';
import {
  kimiK2Source,
  kimiK2ToolVariables,
  kimiK25Source,
  kimiK25ToolVariables,
  kimiK26Source,
} from './kimi/templates.js';
import { GPT_OSS_REASONS, GPT_OSS_TEMPLATE, gptOssDocumentedTemplates, withoutSystemMessage } from './gpt-oss.js';
import { kimiTestTokenizer } from './kimi/test-tokenizer.js';
import { NEMOTRON3_NANO_TEMPLATE, nemotronTestTokenizer } from './nemotron.js';
import { qwen38TestTokenizer } from './test-tokenizers.js';

const ALL = { tools: true, reasoning: true, leadingWhitespace: true };
/** Everything, and images in user messages (the vision families). */
const WITH_IMAGES = { ...ALL, images: true };
const QWEN_IMAGES = { pad: '<|image_pad|>', rule: QWEN3_VL_IMAGE_RULE };
const KIMI_IMAGES = { pad: '<|media_pad|>', rule: KIMI_K25_IMAGE_RULE };
const TEXT_ONLY = { tools: false, reasoning: false, leadingWhitespace: true };

/** One renderer name, its tokenizer (or stand-in), its template and its mode's template variables. */
export interface ConformanceRow {
  name: string;
  /** The template and tokenizer, for the table. */
  label: string;
  tokenizer: () => Tokenizer;
  template: (tok: Tokenizer) => string;
  spec: ConformanceSpec;
  options?: RendererOptions;
}

const own = (tok: Tokenizer) => tok.chatTemplate!;
const qwen3 = () => getTokenizer('Qwen/Qwen3-8B');
const llama31 = () => getTokenizer('meta-llama/Llama-3.1-8B-Instruct');
const llama3 = () => getTokenizer('meta-llama/Meta-Llama-3-8B-Instruct');
const nano = () => NEMOTRON3_NANO_TEMPLATE;
const deepseek = () => getTokenizer('deepseek-ai/DeepSeek-V3.1');
const deepseekV31 = () => readFileSync(new URL('./deepseek-v3.1.chat_template.jinja', import.meta.url), 'utf8');
/** DeepSeek-V3.1's template declares no tools (the system prompt does): reasoning, no tools. */
const NO_TOOLS = { tools: false, reasoning: true, leadingWhitespace: true };
const spec = (
  variables: Record<string, unknown>,
  features: ConversationFeatures = ALL,
  argumentsAsObjects = true,
): ConformanceSpec => ({
  variables,
  features,
  argumentsAsObjects,
  seam: true,
});

const kimi = () => kimiTestTokenizer();
const K2 = 'Kimi K2-Thinking template, stand-in';
const K25 = 'Kimi K2.5 template, stand-in';
const K26 = 'Kimi K2.5 template + K2.6 preserve_thinking, stand-in';
/** How a Kimi model writes its turn after the generation prompt (the renderers train it so). */
const KIMI_TURN = {
  turn: (reasoning: string, text: string) => `<think>${reasoning}</think>${text}<|im_end|>`,
  prefills: ['<think></think>', '<think>'],
};
const kimiSpec = (variables: Record<string, unknown>, k2: boolean): ConformanceSpec => ({
  ...spec(variables, k2 ? ALL : WITH_IMAGES, false),
  toolVariables: k2 ? kimiK2ToolVariables : kimiK25ToolVariables,
  sampledTurn: KIMI_TURN,
  ...(k2 ? {} : { images: KIMI_IMAGES }),
});

/** Kimi K2 / K2.5 / K2.6 (sources in kimi/SOURCES.md; the tokenizer a stand-in with Kimi's special tokens). */
const KIMI_ROWS: ConformanceRow[] = [
  { label: K2, name: 'kimi_k2', tokenizer: kimi, template: kimiK2Source, spec: kimiSpec({}, true) },
  { label: K25, name: 'kimi_k25', tokenizer: kimi, template: kimiK25Source, spec: kimiSpec({}, false) },
  {
    label: K25,
    name: 'kimi_k25_disable_thinking',
    tokenizer: kimi,
    template: kimiK25Source,
    spec: kimiSpec({ thinking: false }, false),
  },
  { label: K26, name: 'kimi_k26', tokenizer: kimi, template: kimiK26Source, spec: kimiSpec({}, false) },
  {
    label: K26,
    name: 'kimi_k26_disable_thinking',
    tokenizer: kimi,
    template: kimiK26Source,
    spec: kimiSpec({ thinking: false, preserve_thinking: false }, false),
  },
  {
    label: K26,
    name: 'kimi_k26_preserve_thinking',
    tokenizer: kimi,
    template: kimiK26Source,
    spec: kimiSpec({ thinking: true, preserve_thinking: true }, false),
  },
];

const gptOss = () => getTokenizer('openai/gpt-oss-20b');
const GPT_OSS = 'gpt-oss-20b template + tokenizer';
/** The date both sides write (the template's `strftime_now`, the renderer's `currentDate`). */
const GPT_OSS_DATE = '2025-08-08';
/** Placeholder of `reasoning_effort`: the four rows render the template once per conversation and substitute it. */
const EFFORT = '\uE0F0';
let gptOssVariant: ReturnType<typeof gptOssDocumentedTemplates> | undefined;
const gptOssSpec = (effort: string, noSystem = false): ConformanceSpec => ({
  ...spec({ reasoning_effort: EFFORT }, { ...ALL, singleToolCall: true }),
  reasoningKey: 'thinking',
  now: new Date(`${GPT_OSS_DATE}T12:00:00Z`),
  substitute: { [EFFORT]: effort },
  documented: { ...(gptOssVariant ??= gptOssDocumentedTemplates()), reasons: GPT_OSS_REASONS },
  ...(noSystem ? { rewrite: { reason: 'no system message' as const, apply: withoutSystemMessage } } : {}),
});
const gptOssRow = (name: string, effort: string): ConformanceRow => ({
  label: GPT_OSS,
  name,
  tokenizer: gptOss,
  template: () => GPT_OSS_TEMPLATE,
  spec: gptOssSpec(effort, name === 'gpt_oss_no_sysprompt'),
  options: { currentDate: GPT_OSS_DATE },
});

/** gpt-oss (Harmony): the official template with the renderers' documented differences (`gpt-oss.ts`). */
const GPT_OSS_ROWS: ConformanceRow[] = [
  gptOssRow('gpt_oss_no_sysprompt', 'medium'),
  gptOssRow('gpt_oss_low_reasoning', 'low'),
  gptOssRow('gpt_oss_medium_reasoning', 'medium'),
  gptOssRow('gpt_oss_high_reasoning', 'high'),
];

/** Every renderer name whose model's template is committed or shipped, with the template variables of its mode. */
export const CONFORMANCE_ROWS: ConformanceRow[] = [
  { label: 'Qwen3 template + tokenizer', name: 'qwen3', tokenizer: qwen3, template: own, spec: spec({}, ALL, false) },
  { label: 'Qwen3 template + tokenizer', name: 'qwen3_disable_thinking', tokenizer: qwen3, template: own, spec: spec({ enable_thinking: false }, ALL, false) },
  { label: 'Llama 3.1 template + tokenizer', name: 'llama3', tokenizer: llama31, template: own, spec: spec({}, TEXT_ONLY) },
  {
    label: 'Llama 3 template + tokenizer',
    name: 'llama3',
    tokenizer: llama3,
    template: own,
    spec: { ...spec({}, TEXT_ONLY), trailing: '<|start_header_id|>assistant<|end_header_id|>\n\n' },
  },
  {
    label: 'DeepSeek-V3.1 template + tokenizer',
    name: 'deepseekv3',
    tokenizer: deepseek,
    template: deepseekV31,
    spec: spec({}, NO_TOOLS, false),
  },
  {
    label: 'DeepSeek-V3.1 template + tokenizer',
    name: 'deepseekv3_disable_thinking',
    tokenizer: deepseek,
    template: deepseekV31,
    spec: spec({}, NO_TOOLS, false),
  },
  {
    label: 'DeepSeek-V3.1 template + tokenizer, prompts only',
    name: 'deepseekv3_thinking',
    tokenizer: deepseek,
    template: deepseekV31,
    spec: { ...spec({ thinking: true }, NO_TOOLS, false), promptOnly: true },
  },
  {
    label: 'Qwen3 template + tokenizer, prompts only',
    name: 'qwen3_instruct',
    tokenizer: qwen3,
    template: own,
    spec: { ...spec({}, { tools: true, reasoning: false, leadingWhitespace: true }, false), promptOnly: true },
  },
  { label: 'Nemotron 3 Nano template, stand-in', name: 'nemotron3', tokenizer: nemotronTestTokenizer, template: nano, spec: spec({}) },
  {
    label: 'Nemotron 3 Nano template, stand-in',
    name: 'nemotron3_disable_thinking',
    tokenizer: nemotronTestTokenizer,
    template: nano,
    spec: spec({ enable_thinking: false }),
  },
  {
    label: 'Nemotron 3 Nano template, stand-in',
    name: 'nemotron3_preserve_thinking',
    tokenizer: nemotronTestTokenizer,
    template: nano,
    spec: spec({ truncate_history_thinking: false }),
  },
  { label: 'Qwen3.8 template, stand-in', name: 'qwen3_8_xhigh_reasoning', tokenizer: qwen38TestTokenizer, template: own, spec: { ...spec({}, WITH_IMAGES), images: QWEN_IMAGES } },
  {
    label: 'Qwen3.8 template, stand-in',
    name: 'qwen3_8_medium_reasoning',
    tokenizer: qwen38TestTokenizer,
    template: own,
    spec: { ...spec({ reasoning_effort: 'medium' }, WITH_IMAGES), images: QWEN_IMAGES },
  },
  { label: 'Qwen3.8 template, stand-in', name: 'qwen3_8_low_reasoning', tokenizer: qwen38TestTokenizer, template: own, spec: { ...spec({ reasoning_effort: 'low' }, WITH_IMAGES), images: QWEN_IMAGES } },
  {
    label: 'Qwen3.8 template, stand-in',
    name: 'qwen3_8_disable_thinking',
    tokenizer: qwen38TestTokenizer,
    template: own,
    spec: { ...spec({ enable_thinking: false }, WITH_IMAGES), images: QWEN_IMAGES },
  },
  {
    label: 'Qwen3.8 template, stand-in',
    name: 'qwen3_5',
    tokenizer: qwen38TestTokenizer,
    template: own,
    spec: { ...spec({ reasoning_effort: 'medium', preserve_thinking: false }, WITH_IMAGES), images: QWEN_IMAGES },
  },
  {
    label: 'Qwen3.8 template, stand-in',
    name: 'qwen3_5_disable_thinking',
    tokenizer: qwen38TestTokenizer,
    template: own,
    spec: { ...spec({ enable_thinking: false, preserve_thinking: false }, WITH_IMAGES), images: QWEN_IMAGES },
  },
  ...KIMI_ROWS,
  ...GPT_OSS_ROWS,
  { label: 'Qwen3 template + tokenizer', name: 'chat_template', tokenizer: qwen3, template: own, spec: spec({}) },
  { label: 'Llama 3.1 template + tokenizer', name: 'chat_template', tokenizer: llama31, template: own, spec: spec({}, TEXT_ONLY) },
  {
    label: 'Llama 3 template + tokenizer',
    name: 'chat_template',
    tokenizer: llama3,
    template: own,
    spec: { ...spec({}, TEXT_ONLY), trailing: '<|start_header_id|>assistant<|end_header_id|>\n\n' },
  },
  { label: 'Nemotron 3 Nano template, stand-in', name: 'chat_template', tokenizer: nemotronTestTokenizer, template: nano, spec: spec({}) },
  { label: 'Qwen3.8 template, stand-in', name: 'chat_template', tokenizer: qwen38TestTokenizer, template: own, spec: spec({}) },
];


/** The deliberate differences a row may show (each documented in the renderer's doc comment and the README). */
export function allowedReasons(row: ConformanceRow): string[] {
  return [
    'quoted control strings stay text',
    ...(row.spec.seam ? ['header/text seam'] : []),
    ...(row.spec.trailing === undefined ? [] : ['template appends a header after the example']),
    ...(row.name === 'chat_template' ? ['refused: not prefix-stable'] : []),
    ...(row.spec.sampledTurn === undefined ? [] : ['trained turn as sampled']),
    ...(row.spec.documented?.reasons ?? []),
    ...(row.spec.rewrite === undefined ? [] : [row.spec.rewrite.reason]),
  ];
}

/** The comparison of one row: its renderer built on the memoising view of the row's tokenizer. */
export function rowConformance(row: ConformanceRow): TemplateConformance {
  const tok = memoTokenizer(row.tokenizer());
  return new TemplateConformance(getRenderer(row.name, tok, row.options), tok, row.template(tok.inner), row.spec);
}
