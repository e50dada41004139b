export type { ChatTemplateRendererOptions } from './chat-template-renderer.js';
export {
  TinkerMessageCompleter,
  type TinkerMessageCompleterOptions,
  TinkerTokenCompleter,
  type TinkerTokenCompleterOptions,
} from './completers.js';
export type { DeepSeekV3RendererOptions } from './deepseek-v3-renderer.js';
export type { ColorizeOptions } from './display.js';
export type { GptOssRendererOptions } from './gpt-oss-renderer.js';
export type { KimiRendererOptions } from './kimi-renderer.js';
export {
  getRecommendedRendererName,
  getRecommendedRendererNames,
  resolveRendererName,
} from './model-info.js';
export {
  loadModelSetup,
  type ModelSetup,
  type ModelSetupConfig,
  resolveModelSetup,
} from './model-setup.js';
export type { Nemotron3RendererOptions } from './nemotron3-renderer.js';
export type { Qwen35RendererOptions } from './qwen3-5-renderer.js';
export type { Qwen3RendererOptions } from './qwen3-renderer.js';
export type { Qwen3VLRendererOptions } from './qwen3-vl-renderer.js';
export {
  BUILT_IN_RENDERER_NAMES,
  getRegisteredRendererNames,
  getRenderer,
  isRendererRegistered,
  type RendererOptions,
  registerRenderer,
  unregisterRenderer,
} from './registry.js';
export {
  BaseRenderer,
  type GenerationPromptOptions,
  isCleanTermination,
  type ParsedResponse,
  parseResponseForStopToken,
  type RenderContext,
  type RenderedMessage,
  type Renderer,
  safeParseResponse,
  TrainOnWhat,
} from './renderer.js';
export type { TmlV0RendererOptions } from './tml-v0-renderer.js';
export { VISION_RENDERER_NAMES } from './vision.js';
