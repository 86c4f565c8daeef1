import { SpacedOut } from './spaced-out';

describe('SpacedOut', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Whether `p` has settled after the pending microtasks ran. */
  async function settled(p: Promise<void>): Promise<boolean> {
    let done = false;
    void p.then(() => (done = true));
    await jest.advanceTimersByTimeAsync(0);
    return done;
  }

  it('gives the first turn at once, and a turn after a quiet spell at once', async () => {
    const s = new SpacedOut(5);
    expect(await settled(s.turn())).toBe(true);
    await jest.advanceTimersByTimeAsync(6);
    expect(await settled(s.turn())).toBe(true);
  });

  it('holds a turn asked for within the spacing until the spacing has passed since the last', async () => {
    const s = new SpacedOut(5);
    await s.turn();
    await jest.advanceTimersByTimeAsync(2);
    const next = s.turn();
    expect(await settled(next)).toBe(false);
    await jest.advanceTimersByTimeAsync(2);
    expect(await settled(next)).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await settled(next)).toBe(true);
  });

  it('counts the spacing from when a held turn was given', async () => {
    const s = new SpacedOut(5);
    await s.turn();
    const second = s.turn();
    await jest.advanceTimersByTimeAsync(5);
    await second;
    const third = s.turn();
    await jest.advanceTimersByTimeAsync(4);
    expect(await settled(third)).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await settled(third)).toBe(true);
  });
});
