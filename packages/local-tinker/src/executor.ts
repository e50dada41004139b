/**
 * Serialises engine work so training and sampling interleave one operation at a time, yielding to the event loop
 * between operations so the HTTP layer answers polls and heartbeats. Invariant: `idle()` resolves only when nothing
 * submitted is still running.
 */
export class Executor {
  private chain: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  run<T>(fn: () => Promise<T> | T): Promise<T> {
    this.inFlight++;
    const p = this.chain.then(async () => {
      // Let the HTTP layer answer polls and heartbeats between engine operations.
      await new Promise((r) => setImmediate(r));
      return fn();
    });
    this.chain = p.then(
      () => this.done(),
      () => this.done(),
    );
    return p;
  }

  private done(): void {
    this.inFlight--;
    if (this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  idle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((r) => this.idleWaiters.push(r));
  }
}
