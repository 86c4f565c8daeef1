/** Connect-style middleware, as Express and Fastify's middie call it. */
export type Middleware<Req, Res> = (req: Req, res: Res, next: (err?: unknown) => void) => unknown;

/**
 * Middleware run one after the other inside one layer of the server's chain,
 * with Express's semantics: a step goes on by calling `next()`, stops the
 * chain by answering without calling it, and hands an error (passed to
 * `next`, thrown, or a rejected promise returned) to the server's own
 * error handling. Joma's per-request basics (headers, request id, the
 * request log, the rate limits, the body parsers) were eight Express
 * layers; every layer a request passes costs a route match, closures and
 * ~650 bytes of garbage, also for a refusal (bench/README.md, "Middleware layers").
 */
export function inOrder<Req, Res>(...steps: Middleware<Req, Res>[]): Middleware<Req, Res> {
  return (req, res, next) => {
    let at = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return next(err);
      if (at === steps.length) return next();
      try {
        const result = steps[at++](req, res, step);
        if (result instanceof Promise)
          result.catch((e: unknown) => next(e ?? new Error('Rejected')));
      } catch (e) {
        next(e);
      }
    };
    step();
  };
}
