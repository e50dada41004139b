/**
 * Conversations to training datums (upstream `supervised/data.py: conversation_to_datum`). The NLL metric
 * (`computeMeanNll`) is `@cookbook/training`'s.
 */
import { type Datum, datumFromModelInputWeights, type Message, type WeightReduction } from '@cookbook/core';
import { type Renderer, TrainOnWhat } from '@cookbook/renderers';

/**
 * Render `messages` with `renderer` and build a cross-entropy datum: inputs are all tokens but the last, targets all
 * but the first, weights follow `trainOnWhat`. With `maxLength`, the sequence is cut from the end first. `reduction`
 * `mean` (the SFT default) scales each example's weights to sum to 1; `none` keeps 0/1 weights.
 */
export function conversationToDatum(
  messages: readonly Message[],
  renderer: Renderer,
  maxLength?: number | null,
  trainOnWhat: TrainOnWhat = TrainOnWhat.ALL_ASSISTANT_MESSAGES,
  reduction: WeightReduction = 'mean',
): Datum {
  const { modelInput, weights } = renderer.buildSupervisedExample(messages, trainOnWhat);
  return datumFromModelInputWeights(modelInput, weights, maxLength ?? undefined, reduction);
}
