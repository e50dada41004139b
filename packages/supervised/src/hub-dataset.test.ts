import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it, vi } from 'vitest';
import { common, tempDir } from './__tests__/helpers.js';
import {
  fromHubDataset,
  fromParquetFile,
  hubFileMatches,
  readConversationRecords,
  readParquetRecords,
} from './hub-dataset.js';

const conversations = Array.from({ length: 10 }, (_, i) => [
  { role: 'user', content: `Say ${i}` },
  { role: 'assistant', content: String(i) },
]);

function writeParquet(path: string, columns: { name: string; data: unknown[]; type: 'JSON' | 'STRING' }[]): void {
  const buf = parquetWriteBuffer({ columnData: columns.map((c) => ({ ...c, data: c.data as string[] })) });
  writeFileSync(path, new Uint8Array(buf));
}

describe('Parquet conversations', () => {
  const dir = tempDir();

  it('reads a messages column stored as JSON', async () => {
    const path = join(dir, 'train.parquet');
    writeParquet(path, [{ name: 'messages', data: conversations, type: 'JSON' }]);
    const rows = await readConversationRecords(path);
    expect(rows).toHaveLength(10);
    expect(rows[3]!.messages).toEqual(conversations[3]);
    expect(rows[3]!.line).toBe(4);
    const { train } = await fromParquetFile({ filePath: path, common: common(3), testSize: 1 })();
    expect(train.length).toBe(3);
  });

  it('reads messages stored as JSON strings under another column name', async () => {
    const path = join(dir, 'strings.parquet');
    writeParquet(path, [
      { name: 'chat', data: conversations.map((c) => JSON.stringify(c)), type: 'STRING' },
      { name: 'id', data: conversations.map((_, i) => `row-${i}`), type: 'STRING' },
    ]);
    expect((await readParquetRecords(path))[0]).toEqual({ chat: JSON.stringify(conversations[0]), id: 'row-0' });
    const rows = await readConversationRecords(path, 'chat');
    expect(rows[9]!.messages[1]!.content).toBe('9');
  });

  it('names the file and row of a bad record', async () => {
    const path = join(dir, 'bad.parquet');
    const bad = [...conversations.slice(0, 2), [{ role: 'wizard', content: 'x' }]];
    writeParquet(path, [{ name: 'messages', data: bad, type: 'JSON' }]);
    await expect(readConversationRecords(path)).rejects.toThrow(/bad\.parquet:3.*messages\[0\]\.role/);
  });

  it('rejects a file that is not Parquet', async () => {
    const path = join(dir, 'not.parquet');
    writeFileSync(path, 'hello');
    await expect(readParquetRecords(path)).rejects.toThrow(/not a readable Parquet file/);
  });
});

describe('hubFileMatches', () => {
  it('picks the data files of a split and subset', () => {
    expect(hubFileMatches('data/train-00000-of-00001.parquet', 'train')).toBe(true);
    expect(hubFileMatches('data/test-00000-of-00001.parquet', 'train')).toBe(false);
    expect(hubFileMatches('default/train/0000.parquet', 'train')).toBe(true);
    expect(hubFileMatches('sft/train_sft.jsonl', 'train_sft', 'sft')).toBe(true);
    expect(hubFileMatches('other/train_sft.jsonl', 'train_sft', 'sft')).toBe(false);
    expect(hubFileMatches('README.md', 'train')).toBe(false);
    expect(hubFileMatches('data/training.parquet', 'train')).toBe(false);
  });
});

describe('fromHubDataset without a network', () => {
  it('says the Hub is unreachable and what to do instead', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }),
      });
    });
    try {
      const build = fromHubDataset({
        repo: 'HuggingFaceH4/no_robots',
        common: common(2),
      });
      await expect(build()).rejects.toThrow(
        'cannot download dataset HuggingFaceH4/no_robots: the Hugging Face Hub is not reachable (no network?); ' +
          'download its files and pass dataset=path/to/file.jsonl (or .parquet)',
      );
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
