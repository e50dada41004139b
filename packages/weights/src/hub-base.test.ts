import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveBaseModelDir } from './hub-base.js';

describe('resolveBaseModelDir', () => {
  it('takes a folder as is', async () => {
    const d = mkdtempSync(join(tmpdir(), 'weights-hub-'));
    expect(await resolveBaseModelDir(d)).toBe(d);
  });

  it('offline, a Hub id is refused with how to name a folder instead', async () => {
    await expect(resolveBaseModelDir('Qwen/Qwen3-8B', { allowDownload: false })).rejects.toThrow(
      /base model "Qwen\/Qwen3-8B" is not a local folder and downloads are off \(offline\): .*base=\/path\/to\/folder/,
    );
  });

  it('names a base that is neither a folder nor a repo id', async () => {
    await expect(resolveBaseModelDir('/no/such/folder')).rejects.toThrow(
      /base model "\/no\/such\/folder" is neither a folder nor a Hugging Face repo id/,
    );
  });
});
