/**
 * Wakes activations waiting for jobs of a type: at once when this engine queues one, else on their next look
 * at the store (a job another process queued).
 */
export class JobBell {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** A job of `type` was queued: every activation waiting for that type looks again. */
  ring(type: string): void {
    const wakers = this.waiting.get(type);
    if (!wakers) return;
    this.waiting.delete(type);
    for (const wake of wakers) wake();
  }

  /** Resolves once a job of `type` is queued here, after `ms` (real time), or when `signal` aborts. */
  wait(type: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wakers = this.waiting.get(type) ?? new Set<() => void>();
      this.waiting.set(type, wakers);
      const wake = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        wakers.delete(wake);
        if (wakers.size === 0 && this.waiting.get(type) === wakers) this.waiting.delete(type);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      signal?.addEventListener('abort', wake, { once: true });
      wakers.add(wake);
    });
  }
}
