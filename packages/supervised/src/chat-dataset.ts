/**
 * Settings shared by chat datasets (upstream `ChatDatasetBuilderCommonConfig`): which tokenizer and renderer turn
 * conversations into tokens, the maximum length, the batch size and which messages are trained.
 */
import type { Datum, Message } from '@cookbook/core';
import { type Renderer, resolveModelSetup, TrainOnWhat } from '@cookbook/renderers';
import { conversationToDatum } from './conversation-to-datum.js';

/** Settings common to every chat dataset builder. */
export interface ChatDatasetCommonConfig {
  /** Model whose tokenizer encodes the text, e.g. `local/qwen3-tiny` or `Qwen/Qwen3-8B`. */
  modelNameForTokenizer: string;
  /** Renderer name; default: the model's recommended renderer. */
  rendererName?: string | null | undefined;
  /** Sequences are cut to this many tokens; default: no limit. */
  maxLength?: number | null | undefined;
  /** Conversations per batch. */
  batchSize: number;
  /** Which tokens are trained. Default `all_assistant_messages`. */
  trainOnWhat?: TrainOnWhat | null | undefined;
}

/** The renderer named by `common` (or the model's recommended one). */
export function rendererForConfig(
  common: Pick<ChatDatasetCommonConfig, 'modelNameForTokenizer' | 'rendererName'>,
): Renderer {
  return resolveModelSetup({ modelName: common.modelNameForTokenizer, rendererName: common.rendererName }).renderer;
}

/** A function turning one conversation into a datum with the settings of `common`. */
export function conversationDatumFn(
  common: ChatDatasetCommonConfig,
  renderer: Renderer = rendererForConfig(common),
): (messages: readonly Message[]) => Datum {
  const trainOnWhat = common.trainOnWhat ?? TrainOnWhat.ALL_ASSISTANT_MESSAGES;
  return (messages) => conversationToDatum(messages, renderer, common.maxLength, trainOnWhat, 'mean');
}
