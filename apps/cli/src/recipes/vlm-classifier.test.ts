import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFields } from '@cookbook/core';
import { decodeForwardBackwardRequest, startLocalTinker } from '@cookbook/local-tinker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { recipes } from '../recipes.js';
import { vlmClassifier } from './vlm-classifier.js';
import { generateShapes, loadHubImageDataset, SHAPE_CLASSES } from './vlm-classifier-data.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

const root = mkdtempSync(join(tmpdir(), 'vlm-classifier-'));

/** Run with no Tinker server configured in the environment. */
async function withoutServerEnv<T>(f: () => Promise<T>): Promise<T> {
  const saved = { url: process.env.TINKER_BASE_URL, key: process.env.TINKER_API_KEY };
  delete process.env.TINKER_BASE_URL;
  delete process.env.TINKER_API_KEY;
  try {
    return await f();
  } finally {
    if (saved.url !== undefined) process.env.TINKER_BASE_URL = saved.url;
    if (saved.key !== undefined) process.env.TINKER_API_KEY = saved.key;
  }
}

describe('vlm_classifier: config and data', () => {
  it('is registered, and every field has a description and a default', () => {
    expect(recipes.map((r) => r.name)).toContain('vlm_classifier');
    for (const f of configFields(vlmClassifier.schema, { keyStyle: 'snake_case' })) {
      expect(f.description, f.path).not.toBe('');
      expect(f.required, f.path).toBe(false);
    }
  });

  it('generates the same shapes for the same seed, every class in turn', () => {
    const a = generateShapes(18, 5);
    const b = generateShapes(18, 5);
    const c = generateShapes(18, 6);
    expect(a.map((x) => x.label)).toEqual([...SHAPE_CLASSES, ...SHAPE_CLASSES]);
    expect(a.map((x) => Buffer.from((x.image as { data: Uint8Array }).data).toString('base64'))).toEqual(
      b.map((x) => Buffer.from((x.image as { data: Uint8Array }).data).toString('base64')),
    );
    expect(
      Buffer.from((a[0]!.image as { data: Uint8Array }).data).equals(
        Buffer.from((c[0]!.image as { data: Uint8Array }).data),
      ),
    ).toBe(false);
  });

  it('reads a Hub image-classification split: ClassLabel names from the features, images fetched from their src', async () => {
    const png = (generateShapes(1, 0)[0]!.image as { data: Uint8Array }).data;
    const urls: string[] = [];
    const fakeFetch = (async (input: string | URL) => {
      const url = String(input);
      urls.push(url);
      if (url.includes('/rows?')) {
        return Response.json({
          features: [
            { name: 'image', type: { _type: 'Image' } },
            { name: 'label', type: { _type: 'ClassLabel', names: ['accordion', 'airplanes'] } },
          ],
          rows: [
            { row: { image: { src: 'https://img.example/0.png' }, label: 1 } },
            { row: { image: { src: 'https://img.example/1.png' }, label: 0 } },
          ],
        });
      }
      return new Response(png);
    }) as typeof fetch;
    const rows = await loadHubImageDataset({
      dataset: 'acme/pics',
      split: 'train',
      limit: 2,
      imageColumn: 'image',
      labelColumn: 'label',
      maxSide: 480,
      fetch: fakeFetch,
    });
    expect(rows.map((r) => r.label)).toEqual(['airplanes', 'accordion']);
    expect(rows.map((r) => (r.image as { width: number }).width)).toEqual([64, 64]);
    expect(urls.filter((u) => u.startsWith('https://img.example/'))).toHaveLength(2);
  });

  it('a Hub dataset offline fails with the Hub reason', async () => {
    const saved = process.env.HF_HUB_OFFLINE;
    process.env.HF_HUB_OFFLINE = '1';
    try {
      const c = capture();
      const code = await withoutServerEnv(() =>
        runCli(
          ['vlm_classifier', 'dataset=hf:dpdl-benchmark/caltech101', `log_path=${join(root, 'hub')}`],
          [vlmClassifier],
          c.io,
        ),
      );
      expect(code).not.toBe(0);
      expect(c.err.join('\n')).toMatch(/dpdl-benchmark\/caltech101.*HF_HUB_OFFLINE=1 is set/);
    } finally {
      if (saved === undefined) delete process.env.HF_HUB_OFFLINE;
      else process.env.HF_HUB_OFFLINE = saved;
    }
  });

  it('refuses a model that does not take images', async () => {
    const c = capture();
    const code = await runCli(
      ['vlm_classifier', 'model_name=Qwen/Qwen3-8B', `log_path=${join(root, 'text')}`],
      [vlmClassifier],
      c.io,
    );
    expect(code).toBe(2);
    expect(c.err.join('\n')).toMatch(
      /model_name Qwen\/Qwen3-8B does not take images; vlm_classifier needs a vision model/,
    );
  });
});

describe('vlm_classifier offline', () => {
  it('builds the first batch, then stops with the "needs a hosted vision model" message', async () => {
    const logPath = join(root, 'offline');
    const c = capture();
    const code = await withoutServerEnv(() =>
      runCli(
        ['vlm_classifier', `log_path=${logPath}`, 'batch_size=4', 'train_size=8', 'test_size=2'],
        [vlmClassifier],
        c.io,
      ),
    );
    const err = c.err.join('\n');
    expect(code, err).toBe(2);
    expect(err).toMatch(
      /first batch built for Qwen\/Qwen3-VL-30B-A3B-Instruct \(qwen3_vl_instruct\): 4 examples, 4 images/,
    );
    expect(err).toMatch(
      /vlm_classifier needs a hosted vision model: the first batch is built \(4 examples, 4 images, \d+ input tokens\), but the embedded service is text-only/,
    );
    expect(existsSync(logPath)).toBe(false);
  });
});

describe('vlm_classifier against a recording Tinker server', () => {
  let service: { baseURL: string; close(): Promise<void> };
  let proxy: Server;
  let proxyURL = '';
  const recorded: { path: string; contentType: string; encoding: string; body: Buffer }[] = [];

  beforeAll(async () => {
    service = await startLocalTinker({ port: 0, root: join(root, 'service') });
    // Records every request and forwards it to the embedded service; create_model's vision base model is swapped for
    // the embedded one so the run gets as far as sending its first batch (which the text-only service then refuses).
    proxy = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (b: Buffer) => parts.push(b));
      req.on('end', async () => {
        let body = Buffer.concat(parts);
        const path = req.url ?? '';
        recorded.push({
          path,
          contentType: String(req.headers['content-type'] ?? ''),
          encoding: String(req.headers['content-encoding'] ?? ''),
          body,
        });
        if (path.endsWith('/create_model')) {
          const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
          body = Buffer.from(JSON.stringify({ ...json, base_model: 'local/qwen3-tiny' }));
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) {
          if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
        }
        const upstream = await fetch(`${service.baseURL}${path}`, {
          method: req.method ?? 'GET',
          headers,
          ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
          redirect: 'manual',
        });
        const out = Buffer.from(await upstream.arrayBuffer());
        const outHeaders: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(k)) outHeaders[k] = v;
        });
        res.writeHead(upstream.status, outHeaders);
        res.end(out);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyURL = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await service.close();
  });

  it('sends a well-formed first batch: text, image, text chunks with image weights 0 and targets aligned', async () => {
    const c = capture();
    const code = await runCli(
      [
        'vlm_classifier',
        `log_path=${join(root, 'hosted')}`,
        `base_url=${proxyURL}`,
        'batch_size=2',
        'train_size=4',
        'test_size=0',
        'max_steps=1',
        'lora_rank=4',
        'behavior_if_log_dir_exists=delete',
      ],
      [vlmClassifier],
      c.io,
    );
    const err = c.err.join('\n');
    // The embedded service cannot read images: its 400 names the model and says where images work.
    expect(code, err).not.toBe(0);
    expect(err).toMatch(/image chunks cannot be read by model "local\/qwen3-tiny".*images need a vision model/s);
    const fb = recorded.find((r) => r.path.endsWith('/forward_backward'));
    expect(fb, recorded.map((r) => r.path).join(', ')).toBeDefined();
    expect(fb!.contentType).toBe('application/x-protobuf');
    expect(fb!.encoding).toBe('');
    const { body } = decodeForwardBackwardRequest(new Uint8Array(fb!.body));
    const input = (
      body as {
        forward_backward_input: {
          loss_fn: string;
          data: {
            model_input: {
              chunks: { type: string; tokens?: number[]; data?: string; format?: string; expected_tokens?: number }[];
            };
            loss_fn_inputs: Record<string, { data: number[] }>;
          }[];
        };
      }
    ).forward_backward_input;
    expect(input.loss_fn).toBe('cross_entropy');
    expect(input.data).toHaveLength(2);
    for (const d of input.data) {
      expect(d.model_input.chunks.map((ch) => ch.type)).toEqual(['encoded_text', 'image', 'encoded_text']);
      const image = d.model_input.chunks[1]!;
      expect(image.format).toBe('png');
      expect(image.expected_tokens).toBe(64);
      const png = Buffer.from(image.data!, 'base64');
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([64, 64]);
      const n = d.model_input.chunks.reduce((s, ch) => s + (ch.tokens?.length ?? ch.expected_tokens ?? 0), 0);
      const weights = d.loss_fn_inputs.weights!.data;
      expect(weights).toHaveLength(n);
      expect(d.loss_fn_inputs.target_tokens!.data).toHaveLength(n);
      const first = d.model_input.chunks[0]!.tokens!.length;
      // Targets at image positions: the target of position i is token i+1; the image covers positions first..first+63.
      expect(weights.slice(first - 1, first + 63).every((w) => w === 0)).toBe(true);
      expect(weights.some((w) => w > 0)).toBe(true);
    }
  });
});
