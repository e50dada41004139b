import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError, readLinesSync, tensorToNumbers } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { FakeService } from './__tests__/fake-service.js';
import { arithmeticLines, common, tempDir, writeLines } from './__tests__/helpers.js';
import { runSft } from './__tests__/run-helpers.js';
import { fromConversationFile, readConversationFile, streamConversationFile } from './conversation-file.js';

function expectDataError(fn: () => unknown, line: number, pattern: RegExp): DataError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DataError);
  const err = caught as DataError;
  expect(err.line).toBe(line);
  expect(err.file).toBeDefined();
  expect(err.message).toMatch(pattern);
  expect(err.message).toContain(`:${line}`);
  return err;
}

describe('conversation files: malformed lines', () => {
  const dir = tempDir();
  const good = arithmeticLines(3);
  const cases: [string, string, RegExp, string | undefined][] = [
    ['invalid JSON', '{"messages": [', /invalid JSON/, undefined],
    ['a non-object', '[1, 2]', /expected a JSON object/, undefined],
    ['missing messages', '{"conversation": []}', /missing "messages"/, 'messages'],
    ['messages not a list', '{"messages": "hi"}', /expected a list of messages/, 'messages'],
    ['empty messages', '{"messages": []}', /no messages/, 'messages'],
    ['an unknown role', '{"messages": [{"role": "robot", "content": "x"}]}', /unknown role.*robot/, 'messages[0].role'],
    [
      'wrong content type',
      '{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": 42}]}',
      /expected a string or a list/,
      'messages[1].content',
    ],
    ['a missing role', '{"messages": [{"content": "x"}]}', /unknown role.*missing/, 'messages[0].role'],
    [
      'a bad content part',
      '{"messages": [{"role": "user", "content": [{"type": "text", "text": 3}]}]}',
      /./,
      'messages[0].content',
    ],
  ];
  for (const [what, bad, pattern, field] of cases) {
    it(`reports ${what} with file and line`, () => {
      const path = writeLines(dir, `${what.replace(/\W+/g, '-')}.jsonl`, [...good.slice(0, 2), '', bad, good[2]!]);
      const err = expectDataError(() => readConversationFile(path), 4, pattern);
      expect(err.file).toBe(path);
      if (field !== undefined) expect(err.field?.startsWith(field)).toBe(true);
      // The streaming builder validates in its first pass too.
      expectDataError(() => streamConversationFile({ filePath: path, common: common(1) })(), 4, pattern);
    });
  }

  it('fails before writing anything to the log dir', async () => {
    const path = writeLines(dir, 'bad-run.jsonl', [...good, '{"messages": [{"role": "user", "content": 1}]}']);
    const logPath = join(dir, 'run-never-created');
    await expect(
      runSft({
        logPath,
        modelName: 'local/qwen3-tiny',
        dataset: fromConversationFile({ filePath: path, common: common(1) }),
        serviceClient: new FakeService(),
        behaviorIfLogDirExists: 'raise',
        console: false,
        log: () => {},
      }),
    ).rejects.toThrow(/bad-run\.jsonl:4/);
    expect(existsSync(logPath)).toBe(false);
  });
});

describe('conversation files: datasets', () => {
  const dir = tempDir();
  const path = writeLines(dir, 'conv.jsonl', arithmeticLines(23));

  it('holds out test_size conversations and makes floor(n/bs) batches', async () => {
    const { train, test } = await fromConversationFile({ filePath: path, common: common(4), testSize: 5 })();
    expect(train.length).toBe(Math.floor(18 / 4));
    expect(test?.length).toBe(1);
    expect(test?.getBatch(0)).toHaveLength(5);
    expect(train.getBatch(0)).toHaveLength(4);
  });

  it('shuffles deterministically per epoch seed', async () => {
    const firstTargets = async (seed: number) => {
      const { train } = await fromConversationFile({ filePath: path, common: common(4), shuffleSeed: 3 })();
      train.setEpoch(seed);
      return train.getBatch(0).map((d) => tensorToNumbers(d.lossFnInputs.target_tokens!).join(','));
    };
    expect(await firstTargets(1)).toEqual(await firstTargets(1));
    expect(await firstTargets(1)).not.toEqual(await firstTargets(2));
  });

  it('streams the same conversations as the in-memory dataset, forward only', async () => {
    const { train, test } = await streamConversationFile({
      filePath: path,
      common: common(4),
      testSize: 3,
      bufferSize: 5,
    })();
    expect(train.length).toBe(5);
    expect(test?.getBatch(0)).toHaveLength(3);
    train.setEpoch(0);
    const all = new Set<string>();
    for (let i = 0; i < train.length; i++) {
      for (const d of train.getBatch(i)) all.add(tensorToNumbers(d.lossFnInputs.target_tokens!).join(','));
    }
    expect(all.size).toBe(20);
    expect(() => train.getBatch(0)).toThrow(/forward only/);
    // Skipping ahead after a restart gives the same batch as reading through.
    train.setEpoch(7);
    const b0 = train.getBatch(0);
    const b3 = train.getBatch(3);
    train.setEpoch(7);
    expect(train.getBatch(3)).toEqual(b3);
    expect(b0).not.toEqual(b3);
  });

  it('rejects a test_size that leaves nothing to train on', () => {
    expect(() => fromConversationFile({ filePath: path, common: common(4), testSize: 23 })()).toThrow(/test_size=23/);
  });

  it('names the file and line when a conversation cannot become a datum', async () => {
    const p = writeLines(dir, 'one-token.jsonl', [JSON.stringify({ messages: [{ role: 'user', content: '' }] })]);
    const { train } = await fromConversationFile({ filePath: p, common: { ...common(1), maxLength: 1 } })();
    expect(() => train.getBatch(0)).toThrow(/one-token\.jsonl:1/);
  });
});

describe('readLinesSync', () => {
  it('keeps multi-byte characters split across reads and handles CRLF and a missing final newline', () => {
    const dir = tempDir();
    const path = join(dir, 'utf8.txt');
    writeFileSync(path, 'héllo wörld ✓\r\nsecond 日本語\nthird');
    const lines = [...readLinesSync(path, 3)];
    expect(lines).toEqual([
      { text: 'héllo wörld ✓', line: 1 },
      { text: 'second 日本語', line: 2 },
      { text: 'third', line: 3 },
    ]);
  });
});
