import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tarOf } from './__fixtures__/tiny-models.js';
import { extractTar } from './tar.js';

const text = (s: string) => new TextEncoder().encode(s);

function setup(archive: Buffer): { file: string; dest: string } {
  const d = mkdtempSync(join(tmpdir(), 'weights-tar-'));
  const file = join(d, 'ckpt.tar');
  writeFileSync(file, archive);
  const dest = join(d, 'out');
  mkdirSync(dest);
  return { file, dest };
}

describe('extractTar', () => {
  it('extracts regular files', () => {
    const { file, dest } = setup(
      tarOf([
        { name: 'adapter_config.json', data: text('{"r":1}') },
        { name: 'checkpoint_complete', data: new Uint8Array() },
      ]),
    );
    expect(extractTar(file, dest)).toEqual([
      { name: 'adapter_config.json', size: 7 },
      { name: 'checkpoint_complete', size: 0 },
    ]);
    expect(readFileSync(join(dest, 'adapter_config.json'), 'utf8')).toBe('{"r":1}');
  });

  it('names a truncated archive', () => {
    const whole = tarOf([{ name: 'a.bin', data: new Uint8Array(3000) }]);
    const { file, dest } = setup(whole.subarray(0, 2048));
    expect(() => extractTar(file, dest)).toThrow(
      /ckpt\.tar is not a valid checkpoint archive: the entry at byte 0 runs past the end of the file; download it again/,
    );
  });

  it('names a damaged header, a link and a path leaving the folder', () => {
    const bad = tarOf([{ name: 'a', data: text('x') }]);
    bad[10] = 0x41;
    expect(() => extractTar(setup(bad).file, setup(bad).dest)).toThrow(/header at byte 0 fails its checksum/);
    const link = setup(tarOf([{ name: 'evil', data: new Uint8Array(), type: '2' }]));
    expect(() => extractTar(link.file, link.dest)).toThrow(/holds a link \(evil\)/);
    const up = setup(tarOf([{ name: '../escape', data: text('x') }]));
    expect(() => extractTar(up.file, up.dest)).toThrow(/entry "\.\.\/escape" would be written outside/);
  });

  it('refuses an archive over the size cap before reading it', () => {
    const { file, dest } = setup(tarOf([{ name: 'a', data: new Uint8Array(4096) }]));
    expect(() => extractTar(file, dest, { maxBytes: 2048 })).toThrow(/over the limit of 2048/);
  });
});
