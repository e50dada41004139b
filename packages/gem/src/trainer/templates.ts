/**
 * Prompt templates of the GEM trainer (GEM `TEMPLATE_FACTORY`): each turn's (wrapped) observation becomes one Qwen3
 * chat user turn with the generation header. `no` passes the observation through (for `concat_chat`, which already
 * rendered a chat); `renderer` renders the `qwen3_game` wording as one user message with the model's chat format
 * (a renderer from `@cookbook/renderers`), so non-Qwen models get their own format.
 */
import { ModelInput, type StopCondition } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';

/** The template names. */
export const TEMPLATE_NAMES = ['qwen3_general', 'qwen3_game', 'no', 'renderer'] as const;
/** A template name. */
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

const REASON = 'Please reason step by step, and put your final answer within \\boxed{}.';
const GAME_INTRO = 'You are playing language games. Make valid actions to win.';

/** The text of a template (`renderer` excepted: see {@link promptTokens}). */
export function applyTemplate(name: Exclude<TemplateName, 'renderer'>, observation: string): string {
  switch (name) {
    case 'qwen3_general':
      return `<|im_start|>user\nQuestion: ${observation}\n${REASON}<|im_end|>\n<|im_start|>assistant\n`;
    case 'qwen3_game':
      return `<|im_start|>user\n${GAME_INTRO}\nObservation: ${observation}\n${REASON}<|im_end|>\n<|im_start|>assistant\n`;
    case 'no':
      return observation;
  }
}

/** The prompt tokens of one turn. Text templates are encoded with the control tokens (`<|im_start|>`) matched. */
export function promptTokens(name: TemplateName, observation: string, renderer: Renderer): ModelInput {
  if (name === 'renderer') {
    return renderer.buildGenerationPrompt([
      { role: 'user', content: `${GAME_INTRO}\nObservation: ${observation}\n${REASON}` },
    ]);
  }
  return ModelInput.fromInts(renderer.tokenizer.encode(applyTemplate(name, observation)));
}

/**
 * Where sampling stops: the renderer's stop sequences (`<|im_end|>` for Qwen3, the end of turn of other formats),
 * plus the tokenizer's EOS.
 */
export function stopCondition(renderer: Renderer): StopCondition {
  const stops = renderer.getStopSequences();
  const eos = renderer.tokenizer.eosTokenId;
  if (stops.length > 0 && typeof stops[0] === 'number') {
    const ids = stops as number[];
    return eos === undefined || ids.includes(eos) ? ids : [...ids, eos];
  }
  return stops;
}
