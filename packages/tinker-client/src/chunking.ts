/**
 * Splitting a forward_backward batch into chunks and combining the chunk results
 * (upstream SDK `lib/chunked_fwdbwd_helpers.py`, tinker-api.md §5.2).
 */

import type { WireDatum } from '@cookbook/tinker-wire';
import type { ForwardBackwardOutput } from './types.js';

/** Bytes a base64 string decodes to. */
export function base64DecodedLength(s: string): number {
  let pad = 0;
  if (s.endsWith('==')) pad = 2;
  else if (s.endsWith('=')) pad = 1;
  return Math.floor((s.length * 3) / 4) - pad;
}

/**
 * Estimated protobuf size of a datum, as SDK 0.25.0 estimates it (`training_client.py`): 4 B per token, an image's
 * raw bytes (the base64 data decoded), a pointer's location, raw tensor bytes, 8 B per CSR index.
 */
export function estimateDatumBytes(d: WireDatum): number {
  let n = 0;
  for (const c of d.model_input.chunks) {
    if (c.type === 'encoded_text') n += 4 * c.tokens.length;
    else if (c.type === 'image') n += base64DecodedLength(c.data);
    else if (c.type === 'image_asset_pointer') n += c.location.length;
    else if (c.type === 'dmel') n += base64DecodedLength(c.dmel);
  }
  for (const t of Object.values(d.loss_fn_inputs)) {
    n += t.data.length * (t.dtype === 'int64' ? 8 : 4);
    n += 8 * ((t.sparse_crow_indices?.length ?? 0) + (t.sparse_col_indices?.length ?? 0));
  }
  return n;
}

/** Split data so that no chunk exceeds `maxLen` datums or (beyond its first datum) `maxBytes`. */
export function chunkData(data: WireDatum[], maxLen: number, maxBytes: number): WireDatum[][] {
  const chunks: WireDatum[][] = [];
  let cur: WireDatum[] = [];
  let bytes = 0;
  for (const d of data) {
    const b = estimateDatumBytes(d);
    if (cur.length > 0 && (cur.length >= maxLen || bytes + b > maxBytes)) {
      chunks.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(d);
    bytes += b;
  }
  if (cur.length > 0 || chunks.length === 0) chunks.push(cur);
  return chunks;
}

const REDUCTIONS = new Set(['mean', 'sum', 'min', 'max', 'slack', 'hash_unordered', 'unique']);

/**
 * Combine chunk results: outputs concatenated in chunk order; metrics reduced by their `:reduction` suffix
 * (mean and slack weighted by datum count). Keys missing from any chunk, or with an unknown reduction, are dropped.
 */
export function combineChunkOutputs(outputs: ForwardBackwardOutput[], sizes: number[]): ForwardBackwardOutput {
  const first = outputs[0];
  if (first === undefined) return { lossFnOutputType: 'ArrayRecord', lossFnOutputs: [], metrics: {} };
  if (outputs.length === 1) return first;
  const metrics: Record<string, number> = {};
  const total = sizes.reduce((a, b) => a + b, 0);
  for (const key of Object.keys(first.metrics)) {
    const reduction = key.slice(key.lastIndexOf(':') + 1);
    if (!key.includes(':') || !REDUCTIONS.has(reduction)) continue;
    const values = outputs.map((o) => o.metrics[key]);
    if (values.some((v) => v === undefined)) continue;
    const vs = values as number[];
    switch (reduction) {
      case 'mean':
      case 'slack':
        metrics[key] = total === 0 ? 0 : vs.reduce((a, v, i) => a + v * sizes[i]!, 0) / total;
        break;
      case 'sum':
        metrics[key] = vs.reduce((a, b) => a + b, 0);
        break;
      case 'min':
        metrics[key] = Math.min(...vs);
        break;
      case 'max':
        metrics[key] = Math.max(...vs);
        break;
      default:
        metrics[key] = vs[0]!;
        for (let i = 1; i < vs.length; i++) metrics[`${key}_${i}`] = vs[i]!;
    }
  }
  return {
    lossFnOutputType: first.lossFnOutputType,
    lossFnOutputs: outputs.flatMap((o) => o.lossFnOutputs),
    metrics,
  };
}
