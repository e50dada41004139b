import { describe, expect, it } from 'vitest';
import { runOutputOptions } from './run-output.js';

describe('runOutputOptions', () => {
  it('defaults to a console table, a progress line and a report, with the loop config in config.json', () => {
    expect(runOutputOptions({}, () => ({ batch_size: 8 }))).toEqual({
      config: { batch_size: 8 },
      console: true,
      progress: true,
      writeReport: true,
    });
  });

  it("passes a caller's settings through and does not build the config when hparams are given", () => {
    const log = (_line: string) => {};
    let built = false;
    const out = runOutputOptions(
      { hparams: { recipe: 'x' }, console: false, progress: false, writeReport: false, log, logDirOptions: {} },
      () => {
        built = true;
        return {};
      },
    );
    expect(out).toEqual({
      config: { recipe: 'x' },
      console: false,
      progress: false,
      writeReport: false,
      log,
      logDirOptions: {},
    });
    expect(built).toBe(false);
  });
});
