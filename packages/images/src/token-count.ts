/**
 * How many tokens an image becomes, per vision family: the size the family's image processor resizes it to, and the
 * merged patch grid of that size. The service computes the same count from the image; the client sends it as the
 * chunk's `expected_tokens`, and a mismatch fails the request.
 *
 * - **Qwen-VL rule** (Qwen3-VL, Qwen3.5 / 3.6 / 3.8: `smart_resize` of the Qwen2-VL image processor in transformers,
 *   with the models' `preprocessor_config.json`: patch 16, spatial merge 2, temporal patch 2,
 *   `size.shortest_edge` = min pixels 65,536, `size.longest_edge` = max pixels 16,777,216). Each side is rounded to a
 *   multiple of `factor = patch × merge` (Python's `round`: halves to even); if the area is above max pixels both
 *   sides are scaled down by `√(h·w / max)` and floored to the factor (at least one factor), if below min pixels
 *   scaled up by `√(min / (h·w))` and ceiled. Tokens = `(h' / patch) · (w' / patch) / merge²`. An aspect ratio above
 *   200 is refused, as the processor refuses it.
 * - **Kimi rule** (Kimi K2.5 / K2.6: `navit_resize_image` of the models' `media_utils`, with `media_proc_cfg`: patch
 *   14, merge kernel 2, `in_patch_limit` 16,384, `patch_limit_on_one_side` 512). The image is only ever scaled down:
 *   `scale = min(1, √(limit / (max(1, ⌊w/p⌋) · max(1, ⌊h/p⌋))), side·p / w, side·p / h)`, each side truncated (at
 *   least 1) and capped at `side·p`, then zero-padded up to a multiple of `p × merge`. Tokens =
 *   `(h'/(p·merge)) · (w'/(p·merge))`. K2.6's values are taken to be K2.5's: its processor is the same code (upstream
 *   loads both with the same image-processor path), but no copy of K2.6's own `preprocessor_config.json` was checked.
 */
import { DataError } from '@cookbook/core';

/** The Qwen-VL image processor settings. */
export interface QwenVLImageRule {
  kind: 'qwen_vl';
  patchSize: number;
  mergeSize: number;
  temporalPatchSize: number;
  minPixels: number;
  maxPixels: number;
}

/** The Kimi (MoonViT NaViT) image processor settings. */
export interface KimiImageRule {
  kind: 'kimi';
  patchSize: number;
  mergeKernelSize: number;
  inPatchLimit: number;
  patchLimitOnOneSide: number;
}

/** A family's image-token rule. */
export type ImageTokenRule = QwenVLImageRule | KimiImageRule;

/** Qwen3-VL and Qwen3.5 / 3.6 / 3.8 (their `preprocessor_config.json`). */
export const QWEN3_VL_IMAGE_RULE: QwenVLImageRule = Object.freeze({
  kind: 'qwen_vl',
  patchSize: 16,
  mergeSize: 2,
  temporalPatchSize: 2,
  minPixels: 65_536,
  maxPixels: 16_777_216,
});

/** Kimi K2.5 / K2.6 (their `preprocessor_config.json` `media_proc_cfg`). */
export const KIMI_K25_IMAGE_RULE: KimiImageRule = Object.freeze({
  kind: 'kimi',
  patchSize: 14,
  mergeKernelSize: 2,
  inPatchLimit: 16_384,
  patchLimitOnOneSide: 512,
});

/** The size an image is resized to and the tokens it becomes. */
export interface ImageTokenPlan {
  /** Height and width the processor resizes to (Kimi: before padding). */
  resizedHeight: number;
  resizedWidth: number;
  /** Merged grid: tokens = gridHeight × gridWidth. */
  gridHeight: number;
  gridWidth: number;
  tokens: number;
}

/** Python's `round` for a non-negative float: the nearest integer, halves to even. */
export function pythonRound(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

function checkSize(height: number, width: number): void {
  if (!Number.isInteger(height) || !Number.isInteger(width) || height < 1 || width < 1) {
    throw new DataError(`an image must be at least 1x1 pixels with integer sides, got ${width}x${height}`);
  }
}

/** The Qwen-VL `smart_resize`: the resized (height, width). */
export function qwenSmartResize(height: number, width: number, rule: QwenVLImageRule): [number, number] {
  checkSize(height, width);
  const factor = rule.patchSize * rule.mergeSize;
  if (Math.max(height, width) / Math.min(height, width) > 200) {
    throw new DataError(
      `a ${width}x${height} image has an aspect ratio of ${(Math.max(height, width) / Math.min(height, width)).toFixed(1)}; ` +
        'the Qwen-VL image processor refuses ratios above 200',
    );
  }
  let hBar = pythonRound(height / factor) * factor;
  let wBar = pythonRound(width / factor) * factor;
  if (hBar * wBar > rule.maxPixels) {
    const beta = Math.sqrt((height * width) / rule.maxPixels);
    hBar = Math.max(factor, Math.floor(height / beta / factor) * factor);
    wBar = Math.max(factor, Math.floor(width / beta / factor) * factor);
  } else if (hBar * wBar < rule.minPixels) {
    const beta = Math.sqrt(rule.minPixels / (height * width));
    hBar = Math.ceil((height * beta) / factor) * factor;
    wBar = Math.ceil((width * beta) / factor) * factor;
  }
  return [hBar, wBar];
}

/** The resize and token count of a `width × height` image under `rule`. */
export function imageTokenPlan(width: number, height: number, rule: ImageTokenRule): ImageTokenPlan {
  checkSize(height, width);
  if (rule.kind === 'qwen_vl') {
    const [h, w] = qwenSmartResize(height, width, rule);
    const gridHeight = h / rule.patchSize / rule.mergeSize;
    const gridWidth = w / rule.patchSize / rule.mergeSize;
    return { resizedHeight: h, resizedWidth: w, gridHeight, gridWidth, tokens: gridHeight * gridWidth };
  }
  const p = rule.patchSize;
  const side = rule.patchLimitOnOneSide;
  const s1 = Math.sqrt(rule.inPatchLimit / (Math.max(1, Math.floor(width / p)) * Math.max(1, Math.floor(height / p))));
  const scale = Math.min(1, s1, (side * p) / width, (side * p) / height);
  const newW = Math.min(Math.max(1, Math.trunc(width * scale)), side * p);
  const newH = Math.min(Math.max(1, Math.trunc(height * scale)), side * p);
  const factor = rule.mergeKernelSize * p;
  const gridHeight = (newH + ((factor - (newH % factor)) % factor)) / factor;
  const gridWidth = (newW + ((factor - (newW % factor)) % factor)) / factor;
  return { resizedHeight: newH, resizedWidth: newW, gridHeight, gridWidth, tokens: gridHeight * gridWidth };
}

/** The number of tokens a `width × height` image becomes under `rule`. */
export function imageTokenCount(width: number, height: number, rule: ImageTokenRule): number {
  return imageTokenPlan(width, height, rule).tokens;
}
