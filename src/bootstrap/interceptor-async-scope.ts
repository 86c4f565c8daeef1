import { AsyncResource } from 'node:async_hooks';
import type { CallHandler, NestInterceptor } from '@nestjs/common';
import type { ContextType } from '@nestjs/common/interfaces';
import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
import { defer, mergeAll, type Observable } from 'rxjs';

/**
 * `fn` bound to the async context it is bound in (AsyncLocalStorage stores
 * included), as `AsyncResource.bind(fn)` binds it, but without the deprecated
 * `asyncResource` accessor (DEP0172) that `AsyncResource.bind` defines on
 * every function it returns.
 */
export function bindAsyncScope<T>(fn: () => T): () => T {
  const resource = new AsyncResource(fn.name || 'bound-anonymous-fn');
  return () => resource.runInAsyncScope(fn);
}

type Intercept = InterceptorsConsumer['intercept'];
type Consumer = InterceptorsConsumer & {
  transformDeferred(next: () => Promise<unknown>): Observable<unknown>;
};

/**
 * NestJS 11 binds each interceptor's `next.handle()` with
 * `AsyncResource.bind`, once per interceptor and once more per request. The
 * accessor that bind defines gives every bound function a hidden class (map)
 * of its own; maps live in V8's old generation until a full mark-compact, and
 * this one reaches the request's whole object graph through the accessor's
 * closure. So every request's objects survive the scavenges in between and
 * are promoted: ~4 KB a request in a bare Nest app with one interceptor,
 * scavenges of ~8 ms instead of ~0.5 (bench/README.md, seventh pass). NestJS
 * 12 binds with a plain closure instead; this is the same change for the
 * NestJS 11 Joma runs on, with Nest's own code path otherwise unchanged.
 *
 * Applied only while the installed Nest still binds with `AsyncResource.bind`
 * (its spec says when it can go).
 */
export function backportInterceptorAsyncScope(): boolean {
  const proto = InterceptorsConsumer.prototype as Consumer;
  if (!needsBackport(proto.intercept)) return false;
  const intercept: Intercept = async function (
    this: Consumer,
    interceptors: NestInterceptor[],
    args: unknown[],
    instance: object,
    callback: (...args: unknown[]) => unknown,
    next: () => Promise<unknown>,
    type?: ContextType,
  ) {
    if (!interceptors || interceptors.length === 0) return next();
    const context = this.createContext(args, instance, callback);
    context.setType(type as ContextType); // as Nest's own: undefined when the router names none
    const nextFn = async (i = 0): Promise<Observable<unknown>> => {
      if (i >= interceptors.length) {
        return defer(bindAsyncScope(() => this.transformDeferred(next)));
      }
      const handler: CallHandler = {
        handle: () => defer(bindAsyncScope(() => nextFn(i + 1))).pipe(mergeAll()),
      };
      return interceptors[i].intercept(context as never, handler) as Observable<unknown>;
    };
    return defer(() => nextFn()).pipe(mergeAll());
  } as Intercept;
  proto.intercept = intercept;
  return true;
}

/** Whether an `intercept` implementation is Nest 11's, which binds with `AsyncResource.bind`. */
export function needsBackport(intercept: Intercept): boolean {
  return intercept.toString().includes('AsyncResource.bind(');
}
