/**
 * Image-token counts per vision family, for tiny, odd, very wide, very tall and large images. Every expected count
 * below is worked out here from the family's published rule, not from this package's code:
 *
 * - Qwen-VL (Qwen3-VL, Qwen3.5 / 3.6 / 3.8): transformers' Qwen2-VL image processor `smart_resize` with the models'
 *   `preprocessor_config.json` (patch_size 16, merge_size 2, size.shortest_edge 65536, size.longest_edge 16777216);
 *   factor = 32; tokens = (h'/16)·(w'/16)/4. The first four rows of the upstream table are the upstream cookbook's
 *   own regression cases for Qwen/Qwen3-VL-8B-Instruct (`renderers/image_token_count_test.py`).
 * - Kimi K2.5 / K2.6: `media_utils.navit_resize_image` with `media_proc_cfg` (patch_size 14, merge_kernel_size 2,
 *   in_patch_limit 16384, patch_limit_on_one_side 512); factor = 28, tokens = ⌈h'/28⌉·⌈w'/28⌉.
 */
import { describe, expect, it } from 'vitest';
import {
  imageTokenCount,
  imageTokenPlan,
  KIMI_K25_IMAGE_RULE,
  pythonRound,
  QWEN3_VL_IMAGE_RULE,
} from './token-count.js';

// [width, height, tokens, derivation]
const QWEN: [number, number, number, string][] = [
  [224, 224, 64, 'upstream case: 224² < 65536 → β=√(65536/50176), sides ⌈224β/32⌉·32 = 256 → 8·8'],
  [150, 224, 70, 'upstream case ("Expected 35, got 70"): → 224x320 → 7·10'],
  [224, 150, 70, 'upstream case: → 320x224 → 10·7'],
  [400, 300, 108, 'upstream case: round(300/32)=9, round(400/32)=12 → 288x384 = 110592, in range → 9·12'],
  [1, 1, 64, 'tiny: round(1/32)=0 → area 0 < min → β=256, ⌈256/32⌉=8 → 256x256 → 8·8'],
  [333, 517, 160, 'odd: round(517/32=16.16)=16 → 512, round(333/32=10.41)=10 → 320; in range → 16·10'],
  [6000, 40, 188, 'very wide: round(40/32=1.25)=1 → 32, round(6000/32=187.5)=188 (half to even) → 6016 → 1·188'],
  [80, 4000, 250, 'very tall: round(80/32=2.5)=2 (half to EVEN, not 3) → 64, 4000/32=125 → 2·125'],
  [8000, 6000, 16170, 'large: 8000x6016 > max → β=√(48e6/16777216)=1.6915; ⌊6000/β/32⌋=110, ⌊8000/β/32⌋=147 → 110·147'],
];

const KIMI: [number, number, number, string][] = [
  [1, 1, 1, 'tiny: scale 1 → 1x1 padded to 28x28 → 1·1'],
  [30, 30, 4, 'small: 30 pads to 56 → 2·2'],
  [333, 517, 228, 'odd: s1=√(16384/(23·36))=4.4 → scale 1; 333→336 = 12·28, 517→532 = 19·28 → 12·19'],
  [6000, 40, 430, 'very wide: s1=√(16384/(428·2))=4.4, s2=7168/6000=1.19 → scale 1; 6000→6020 = 215·28, 40→56 → 215·2'],
  [80, 4000, 429, 'very tall: s1=√(16384/(5·285))=3.4 → scale 1; 80→84 = 3·28, 4000→4004 = 143·28 → 3·143'],
  [
    8000,
    6000,
    4144,
    'large: s1=√(16384/(571·428))=0.258923 → 2071x1553 (truncated); ⌈2071/28⌉=74, ⌈1553/28⌉=56 → 74·56',
  ],
  [400, 300, 165, '400→420 = 15·28, 300→308 = 11·28 → 15·11'],
];

describe('Qwen-VL image tokens (Qwen3-VL, Qwen3.5 / 3.6 / 3.8)', () => {
  for (const [w, h, tokens, why] of QWEN) {
    it(`${w}x${h} → ${tokens} (${why})`, () => {
      expect(imageTokenCount(w, h, QWEN3_VL_IMAGE_RULE)).toBe(tokens);
    });
  }
  it('resizes to multiples of 32 within the pixel bounds', () => {
    const p = imageTokenPlan(8000, 6000, QWEN3_VL_IMAGE_RULE);
    expect([p.resizedWidth, p.resizedHeight]).toEqual([4704, 3520]);
    expect(p.resizedWidth * p.resizedHeight).toBeLessThanOrEqual(QWEN3_VL_IMAGE_RULE.maxPixels);
  });
  it('refuses an aspect ratio above 200, as the processor does', () => {
    expect(() => imageTokenCount(201, 1, QWEN3_VL_IMAGE_RULE)).toThrow(/aspect ratio of 201\.0.*above 200/);
    expect(imageTokenCount(200, 1, QWEN3_VL_IMAGE_RULE)).toBeGreaterThan(0);
  });
  it("rounds halves to even, as Python's round", () => {
    expect([0.5, 1.5, 2.5, 3.5, 2.4, 2.6].map(pythonRound)).toEqual([0, 2, 2, 4, 2, 3]);
  });
});

describe('Kimi K2.5 / K2.6 image tokens', () => {
  for (const [w, h, tokens, why] of KIMI) {
    it(`${w}x${h} → ${tokens} (${why})`, () => {
      expect(imageTokenCount(w, h, KIMI_K25_IMAGE_RULE)).toBe(tokens);
    });
  }
  it('caps each side at 512 patches', () => {
    const p = imageTokenPlan(20_000, 100, KIMI_K25_IMAGE_RULE);
    expect(p.resizedWidth).toBeLessThanOrEqual(512 * 14);
    expect(p.gridWidth * 2).toBeLessThanOrEqual(512);
  });
});

describe('bad sizes', () => {
  it('refuses zero or fractional sides', () => {
    expect(() => imageTokenCount(0, 10, QWEN3_VL_IMAGE_RULE)).toThrow(/at least 1x1.*0x10/);
    expect(() => imageTokenCount(1.5, 10, KIMI_K25_IMAGE_RULE)).toThrow(/integer sides/);
  });
});
