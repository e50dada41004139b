/**
 * Record what a real client sends: a proxy on 127.0.0.1 in front of `cookbook serve` that answers the first
 * `asample` with a 429 (the client must resubmit with the same seq_id), writes every request to a JSONL file and
 * prints the violations of the SDK 0.25.0 request contract when stopped (Ctrl-C). With `SAVE_PROTO=dir`, the first
 * forward_backward bodies (as sent, zstd or not) are saved there as fixtures.
 *
 * Usage: node --conditions=@cookbook/source --import tsx sdk/record-proxy.ts <upstream-url> <port> <out.jsonl>
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkRequest, type RecordedWireRequest } from '@cookbook/tinker-wire';
import { RecordingProxy } from '../src/recording-proxy.js';

const [upstream, port, out] = process.argv.slice(2);
if (!upstream || !port || !out) {
  console.error('usage: record-proxy.ts <upstream-url> <port> <out.jsonl>');
  process.exit(2);
}
const saveDir = process.env.SAVE_PROTO;
const proxy = new RecordingProxy(upstream);
let sampled429 = false;
let saved = 0;
proxy.intercept = (r: RecordedWireRequest) => {
  appendFileSync(out, `${JSON.stringify({ ...r, body: Buffer.from(r.body).toString('base64') })}\n`);
  if (saveDir && r.path === '/api/v1/forward_backward' && saved < 4) {
    mkdirSync(saveDir, { recursive: true });
    const enc = r.headers['content-encoding'] === 'zstd' ? '.zst' : '';
    writeFileSync(join(saveDir, `forward-backward-${saved++}.pb${enc}`), r.body);
  }
  if (r.path === '/api/v1/asample' && !sampled429) {
    sampled429 = true;
    return { status: 429, json: { detail: 'backpressure (injected by record-proxy)' } };
  }
  return undefined;
};
await proxy.start(Number(port));
console.log(`recording ${upstream} at ${proxy.url} into ${out}`);
process.once('SIGINT', () => {
  const violations = proxy.requests.flatMap(checkRequest);
  console.log(`${proxy.requests.length} requests, ${violations.length} contract violations`);
  for (const v of violations) console.log(`  ${v}`);
  void proxy.close().then(() => process.exit(0));
});
