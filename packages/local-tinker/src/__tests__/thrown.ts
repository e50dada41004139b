/** Test helper: the refusal a synchronous check throws. */
import { HttpError } from '../http-errors.js';

/** The {@link HttpError} `fn` throws; any other error is rethrown, and returning normally fails the test. */
export function thrown(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error('expected an HttpError');
}
