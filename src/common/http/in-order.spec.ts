import { inOrder, type Middleware } from './in-order';

type Req = { seen: string[] };
const req = (): Req => ({ seen: [] });
const mark =
  (name: string): Middleware<Req, unknown> =>
  (r, _res, next) => {
    r.seen.push(name);
    next();
  };

describe('inOrder', () => {
  it('runs every step in order, then goes on once', () => {
    const r = req();
    const next = jest.fn();
    inOrder(mark('a'), mark('b'), mark('c'))(r, {}, next);
    expect(r.seen).toEqual(['a', 'b', 'c']);
    expect(next).toHaveBeenCalledTimes(1);
    expect(next).toHaveBeenCalledWith();
  });

  it('stops where a step answers without calling next', () => {
    const r = req();
    const next = jest.fn();
    const answer: Middleware<Req, unknown> = (x) => void x.seen.push('answered');
    inOrder(mark('a'), answer, mark('c'))(r, {}, next);
    expect(r.seen).toEqual(['a', 'answered']);
    expect(next).not.toHaveBeenCalled();
  });

  it('goes on after a step that calls next later', async () => {
    const r = req();
    const done = new Promise<unknown[]>((ok) => {
      const later: Middleware<Req, unknown> = (x, _res, next) =>
        void setImmediate(() => (x.seen.push('later'), next()));
      inOrder(later, mark('b'))(r, {}, (...args: unknown[]) => ok(args));
    });
    expect(await done).toEqual([]);
    expect(r.seen).toEqual(['later', 'b']);
  });

  it('hands an error passed to next, thrown (also after an asynchronous step) or rejected to the server, and runs nothing after it', async () => {
    const boom = new Error('boom');
    const cases: Middleware<Req, unknown>[] = [
      (_r, _s, next) => next(boom),
      () => {
        throw boom;
      },
      () => Promise.reject(boom),
    ];
    for (const failing of cases) {
      const r = req();
      const got = await new Promise<unknown>((ok) => inOrder(failing, mark('after'))(r, {}, ok));
      expect(got).toBe(boom);
      expect(r.seen).toEqual([]);
    }
    const r = req();
    const later: Middleware<Req, unknown> = (_x, _res, next) => void setImmediate(() => next());
    const thrown = await new Promise<unknown>((ok) =>
      inOrder(later, () => {
        throw boom;
      })(r, {}, ok),
    );
    expect(thrown).toBe(boom);
  });
});
