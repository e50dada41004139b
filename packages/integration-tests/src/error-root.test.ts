import { CheckpointError, ConfigError, CookbookError, DataError } from '@cookbook/core';
import { EngineInputError, ModelLoadError } from '@cookbook/engine';
import { HttpError } from '@cookbook/local-tinker';
import { BadRequestError, RequestFailedError } from '@cookbook/tinker-client';
import { describe, expect, it } from 'vitest';

describe('one error root', () => {
  it('recognises every package’s errors, the engine’s included, and nothing else', () => {
    const ours = [
      new ConfigError('x', { key: 'k' }),
      new DataError('x', { file: 'f', line: 1 }),
      new CheckpointError('x'),
      new EngineInputError('x'),
      new ModelLoadError('x'),
      new HttpError(400, 'x'),
      new BadRequestError('x', { status: 400 }),
      new RequestFailedError('x', 'user', 'req-1'),
    ];
    for (const e of ours) expect(CookbookError.isInstance(e), e.name).toBe(true);
    for (const e of [new Error('x'), new TypeError('x'), { message: 'x' }, null, 'x']) {
      expect(CookbookError.isInstance(e)).toBe(false);
    }
  });

  it('recognises an error from another copy of the package (a marker, not instanceof)', () => {
    class ForeignError extends Error {
      constructor() {
        super('from another copy');
        Object.defineProperty(this, Symbol.for('cookbook.error'), { value: true });
      }
    }
    const e = new ForeignError();
    expect(e instanceof CookbookError).toBe(false);
    expect(CookbookError.isInstance(e)).toBe(true);
  });
});
