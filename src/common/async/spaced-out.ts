/**
 * Keeps turns of a repeated task at least `spacingMs` apart: `turn()`
 * resolves at once when the last turn began long enough ago, and otherwise
 * after the rest of the spacing. A loop that awaits `turn()` before each
 * round trip lets work arriving in between gather into one round trip.
 */
export class SpacedOut {
  private last = -Infinity;

  constructor(private readonly spacingMs: number) {}

  async turn(): Promise<void> {
    const wait = this.last + this.spacingMs - performance.now();
    if (wait > 0) await new Promise((ok) => setTimeout(ok, wait));
    this.last = performance.now();
  }
}
