export {
  CHAT_TEMPLATE_TOOLS_ROLE,
  ChatTemplateRenderer,
  type ChatTemplateRendererOptions,
  type TemplateLimits,
} from './chat-template-renderer.js';
export {
  type CompleterSamplingClient,
  TinkerMessageCompleter,
  type TinkerMessageCompleterOptions,
  TinkerTokenCompleter,
  type TinkerTokenCompleterOptions,
} from './completers.js';
export {
  type ContentBlocks,
  detectUnterminatedToolBlock,
  parseContentBlocks,
  parseToolCallPayload,
} from './content-blocks.js';
export { DeepSeekV3Renderer, type DeepSeekV3RendererOptions } from './deepseek-v3-renderer.js';
export { type ColorizeOptions, colorizeExample, formatColorized } from './display.js';
export {
  formatHarmonyToolDefinition,
  GptOssRenderer,
  type GptOssRendererOptions,
  HARMONY_SYSTEM_ROLE,
  HARMONY_TOOL_ROUTING,
  type ReasoningEffort,
} from './gpt-oss-renderer.js';
export {
  KIMI_DEFAULT_SYSTEM_PROMPT,
  KIMI_IMAGE_FRAMING,
  KIMI_TOOL_DECLARE_ROLE,
  KimiRenderer,
  type KimiRendererOptions,
  type KimiVersion,
} from './kimi-renderer.js';
export { kimiJsonTools, kimiToolDeclaration, kimiTypeScriptTools } from './kimi-tool-declaration.js';
export { Llama3Renderer } from './llama3-renderer.js';
export {
  getRecommendedRendererName,
  getRecommendedRendererNames,
  rendererNotRecommendedWarning,
  resolveRendererName,
} from './model-info.js';
export { loadModelSetup, type ModelSetup, type ModelSetupConfig, resolveModelSetup } from './model-setup.js';
export {
  type Nemotron3Effort,
  type Nemotron3Format,
  Nemotron3Renderer,
  type Nemotron3RendererOptions,
} from './nemotron3-renderer.js';
export {
  QWEN38_REASONING_INSTRUCTIONS,
  type Qwen35Family,
  Qwen35Renderer,
  type Qwen35RendererOptions,
  type Qwen38ReasoningEffort,
} from './qwen3-5-renderer.js';
export { type Qwen3Mode, Qwen3Renderer, type Qwen3RendererOptions } from './qwen3-renderer.js';
export { QWEN_VL_IMAGE_FRAMING, Qwen3VLRenderer, type Qwen3VLRendererOptions } from './qwen3-vl-renderer.js';
export {
  BUILT_IN_RENDERER_NAMES,
  getRegisteredRendererNames,
  getRenderer,
  isRendererRegistered,
  type RendererFactory,
  type RendererOptions,
  registerRenderer,
  unregisterRenderer,
} from './registry.js';
export {
  BaseRenderer,
  type GenerationPromptOptions,
  isCleanTermination,
  makeRenderContext,
  type ParsedResponse,
  type ParseTermination,
  parseResponseForStopToken,
  type RenderContext,
  type RenderedMessage,
  type Renderer,
  type SupervisedExample,
  safeParseResponse,
  TrainOnWhat,
} from './renderer.js';
export { RoleColonRenderer } from './role-colon-renderer.js';
export {
  formatThinkingEffort,
  TML_V0_DEFAULT_EFFORT,
  TML_V0_TOKENS,
  TmlV0Renderer,
  type TmlV0RendererOptions,
} from './tml-v0-renderer.js';
export {
  appendContent,
  hasImages,
  type ImageFraming,
  imageRefusal,
  spliceImages,
  TemplateParts,
  VISION_RENDERER_NAMES,
} from './vision.js';
