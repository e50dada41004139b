/**
 * A decoder worker thread (`body-decoder-pool.ts`): decodes one body per message with {@link decodeBody} and
 * answers with its outcome. An unexpected error is answered as `{crash}` (the pool answers it as an internal error).
 */
import { parentPort } from 'node:worker_threads';
import { type DecodeTask, decodeBody } from './body-decode.js';

const port = parentPort;
if (port === null) throw new Error('body-decoder-worker must run in a worker thread');
port.on('message', (task: DecodeTask) => {
  try {
    port.postMessage({ outcome: decodeBody(task) });
  } catch (err) {
    port.postMessage({ crash: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
