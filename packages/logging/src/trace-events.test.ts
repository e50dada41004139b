import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useTempDir } from './__fixtures__/test-utils.js';
import { convertTraceEvents, TraceEventWriter } from './trace-events.js';

const tmp = useTempDir();

it('writes complete events per line and converts them to a Perfetto JSON trace', async () => {
  let t = 1000;
  const writer = new TraceEventWriter(join(tmp(), 'trace_events.jsonl'), { pid: 7, nowUs: () => t });
  const result = await writer.span(
    'train_step',
    () => {
      t += 250;
      return 42;
    },
    { tid: 2, args: { step: 0 } },
  );
  await expect(
    writer.span('fails', () => {
      t += 5;
      throw new Error('x');
    }),
  ).rejects.toThrow('x');
  expect(result).toBe(42);
  const lines = readFileSync(writer.path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines).toEqual([
    { name: 'train_step', ph: 'X', ts: 1000, dur: 250, pid: 7, tid: 2, args: { step: 0 } },
    { name: 'fails', ph: 'X', ts: 1250, dur: 5, pid: 7, tid: 0 },
  ]);
  expect(await convertTraceEvents(writer.path, join(tmp(), 'trace.json'))).toBe(2);
  expect(JSON.parse(readFileSync(join(tmp(), 'trace.json'), 'utf8')).traceEvents).toHaveLength(2);
});
