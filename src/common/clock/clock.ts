/**
 * The one source of "now". Production uses the system clock; tests inject a
 * ManualClock and move time instead of sleeping.
 */
export abstract class Clock {
  abstract now(): Date;
  nowMs(): number {
    return this.now().getTime();
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
  override nowMs(): number {
    return Date.now();
  }
}

/** A clock that follows the system clock plus an offset tests can advance. */
export class ManualClock extends Clock {
  private offsetMs = 0;
  private frozenAt: number | null = null;

  now(): Date {
    const base = this.frozenAt ?? Date.now();
    return new Date(base + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  advanceMinutes(minutes: number): void {
    this.advance(minutes * 60_000);
  }

  freeze(at: Date = new Date()): void {
    this.frozenAt = at.getTime();
    this.offsetMs = 0;
  }

  reset(): void {
    this.offsetMs = 0;
    this.frozenAt = null;
  }
}
