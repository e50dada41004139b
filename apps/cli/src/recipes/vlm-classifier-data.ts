/**
 * Data of `cookbook vlm_classifier`: a small shapes-and-colours image set generated at run time (seeded: the same
 * seed draws the same pictures), and a Hugging Face image-classification dataset read through the Hub rows API
 * (online only; images fetched and loaded with `@cookbook/images`).
 */
import { ConfigError, DataError, type LoadedImage, seededRandom } from '@cookbook/core';
import { fetchHubRows, type LabelledImage } from '@cookbook/eval';
import { encodePng, imagePartWhere, loadImage } from '@cookbook/images';

/** The generated set's colours (name → RGB). */
export const SHAPE_COLOURS: Readonly<Record<string, readonly [number, number, number]>> = Object.freeze({
  red: [220, 40, 40],
  green: [40, 170, 60],
  blue: [40, 80, 220],
});

/** The generated set's shapes. */
export const SHAPES = ['circle', 'square', 'triangle'] as const;

/** Every class of the generated set: `<colour> <shape>`. */
export const SHAPE_CLASSES: readonly string[] = Object.freeze(
  Object.keys(SHAPE_COLOURS).flatMap((c) => SHAPES.map((s) => `${c} ${s}`)),
);

function inside(shape: (typeof SHAPES)[number], x: number, y: number, cx: number, cy: number, r: number): boolean {
  const dx = x - cx;
  const dy = y - cy;
  if (shape === 'circle') return dx * dx + dy * dy <= r * r;
  if (shape === 'square') return Math.abs(dx) <= r * 0.85 && Math.abs(dy) <= r * 0.85;
  // An upward triangle: apex at (cx, cy - r), base at y = cy + r.
  if (dy < -r || dy > r) return false;
  const half = ((dy + r) / (2 * r)) * r;
  return Math.abs(dx) <= half;
}

/** One picture: a `colour shape` at a seeded place and size on a lightly speckled white background. */
export function drawShape(label: string, size: number, rand: () => number): LoadedImage {
  const [colour, shape] = label.split(' ') as [string, (typeof SHAPES)[number]];
  const rgb = SHAPE_COLOURS[colour];
  if (rgb === undefined || !SHAPES.includes(shape)) throw new ConfigError(`unknown shape class "${label}"`);
  const r = size * (0.2 + 0.15 * rand());
  const cx = r + (size - 2 * r) * rand();
  const cy = r + (size - 2 * r) * rand();
  const px = new Uint8Array(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const at = (y * size + x) * 3;
      if (inside(shape, x + 0.5, y + 0.5, cx, cy, r)) px.set(rgb, at);
      else {
        const v = 235 + Math.floor(rand() * 20);
        px[at] = v;
        px[at + 1] = v;
        px[at + 2] = v;
      }
    }
  }
  return { kind: 'loaded_image', format: 'png', data: encodePng(size, size, px), width: size, height: size };
}

/** `n` labelled pictures (classes in turn, each drawn from the seeded generator). */
export function generateShapes(n: number, seed: number, size = 64): LabelledImage[] {
  if (!Number.isInteger(size) || size < 8 || size > 1024) {
    throw new ConfigError(`image_size must be an integer in [8, 1024], got ${size}`, { key: 'image_size' });
  }
  const rand = seededRandom(seed);
  const out: LabelledImage[] = [];
  for (let i = 0; i < n; i++) {
    const label = SHAPE_CLASSES[i % SHAPE_CLASSES.length]!;
    out.push({ image: drawShape(label, size, rand), label });
  }
  return out;
}

/** Options of {@link loadHubImageDataset}. */
export interface HubImageDatasetOptions {
  dataset: string;
  split: string;
  limit: number;
  imageColumn: string;
  labelColumn: string;
  /** Downscale so neither side exceeds this (upstream `max_image_size` 480). */
  maxSide: number;
  fetch?: typeof fetch;
}

/**
 * Labelled images of a Hub dataset split (the rows API: an image cell is `{src}`, a ClassLabel cell an index named by
 * the split's features). Online only: offline the rows read fails with the Hub's reason.
 */
export async function loadHubImageDataset(options: HubImageDatasetOptions): Promise<LabelledImage[]> {
  let names: string[] | undefined;
  const rows = await fetchHubRows({
    dataset: options.dataset,
    split: options.split,
    limit: options.limit,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    onFeatures: (features) => {
      for (const f of features as { name?: string; type?: { _type?: string; names?: string[] } }[]) {
        if (f.name === options.labelColumn && f.type?._type === 'ClassLabel') names = f.type.names;
      }
    },
  });
  return Promise.all(
    rows.map(async (row, i) => {
      const where = `${options.dataset}:${options.split} row ${i}`;
      const cell = row[options.imageColumn] as { src?: unknown } | undefined;
      if (typeof cell?.src !== 'string') {
        throw new DataError(`${where}: column "${options.imageColumn}" holds no image ({src}) cell`);
      }
      const raw = row[options.labelColumn];
      const label = typeof raw === 'number' ? names?.[raw] : typeof raw === 'string' ? raw : undefined;
      if (label === undefined) {
        throw new DataError(
          `${where}: column "${options.labelColumn}" holds no class label (got ${JSON.stringify(raw)})`,
        );
      }
      const image = await loadImage(cell.src, {
        where: `${where} (${imagePartWhere(0, 0)})`,
        maxSide: options.maxSide,
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      });
      return { image, label };
    }),
  );
}
