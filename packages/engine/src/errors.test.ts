import { CookbookError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { EngineCancelledError, EngineError, EngineInputError, KernelError, ModelLoadError } from './errors.js';

describe('engine errors', () => {
  it('sit under the one cookbook root and keep their own class names', () => {
    const cause = new Error('disk');
    for (const Kind of [EngineInputError, ModelLoadError, KernelError, EngineCancelledError]) {
      const e = new Kind('bad thing', { cause });
      expect(e).toBeInstanceOf(EngineError);
      expect(e).toBeInstanceOf(CookbookError);
      expect(CookbookError.isInstance(e)).toBe(true);
      expect(e.name).toBe(Kind.name);
      expect(e.message).toBe('bad thing');
      expect(e.cause).toBe(cause);
    }
  });
});
