/**
 * A promise for `future` that never counts as an unhandled rejection while nobody awaits it yet. A checkpoint save is
 * submitted long before its paths are awaited; a failure in between must surface at the await, not crash Node.
 */
export function deferred<T>(future: PromiseLike<T>): Promise<T> {
  const p = Promise.resolve(future);
  p.catch(() => undefined);
  return p;
}
