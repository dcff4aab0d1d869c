// A daemon's start-up in stages: what each stage started is undone, last first, when a later stage
// fails or a stop is asked for (SIGINT or SIGTERM while it starts), and the same way when it stops.

export class StartUp {
  private readonly undos: (() => Promise<void> | void)[] = [];
  private unwinding: Promise<void> | undefined;

  constructor(private readonly stop: AbortSignal | undefined) {}

  /**
   * Runs one stage and keeps `release` to undo it. When the stage fails, or a stop was asked for
   * before or while it ran, every stage is undone and the error (or the stop's reason) is thrown.
   */
  async stage<T>(work: () => Promise<T> | T, release?: (value: T) => Promise<void> | void): Promise<T> {
    try {
      this.stop?.throwIfAborted();
      const value = await work();
      if (release) this.undos.push(() => release(value));
      this.stop?.throwIfAborted();
      return value;
    } catch (error) {
      await this.unwind().catch(() => undefined);
      throw error;
    }
  }

  /** Undoes every stage once, last first, each even when one after it failed to; the first failure is thrown. */
  unwind(): Promise<void> {
    return (this.unwinding ??= (async () => {
      const failures: unknown[] = [];
      for (let undo = this.undos.pop(); undo; undo = this.undos.pop()) {
        await Promise.resolve()
          .then(undo)
          .catch((error: unknown) => failures.push(error));
      }
      if (failures.length) throw failures[0];
    })());
  }
}

/** Rejects with the stop's reason once it is asked for; never settles without one. */
export function whenStopped(stop: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (!stop) return;
    if (stop.aborted) return reject(stop.reason as Error);
    stop.addEventListener('abort', () => reject(stop.reason as Error), { once: true });
  });
}
