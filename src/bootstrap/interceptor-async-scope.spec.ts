import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
import { lastValueFrom, map, type Observable } from 'rxjs';
import {
  backportInterceptorAsyncScope,
  bindAsyncScope,
  needsBackport,
} from './interceptor-async-scope';

const store = new AsyncLocalStorage<string>();

/** An interceptor that records the store it sees before and after the handler, and tags the result. */
function tagging(tag: string, seen: string[]): NestInterceptor {
  return {
    intercept(_ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
      seen.push(`${tag} before: ${store.getStore()}`);
      return next.handle().pipe(
        map((data) => {
          seen.push(`${tag} after: ${store.getStore()}`);
          return `${tag}(${String(data)})`;
        }),
      );
    },
  };
}

async function run(
  interceptors: NestInterceptor[],
  handler: () => Promise<unknown>,
): Promise<unknown> {
  const consumer = new InterceptorsConsumer();
  // As Nest's router does: intercept, then subscribe, in the request's async context.
  return store.run('request-1', async () => {
    const observable = await consumer.intercept(
      interceptors,
      [{}, {}],
      {},
      () => undefined,
      handler,
      'http',
    );
    return lastValueFrom(observable as Observable<unknown>);
  });
}

describe('the interceptor async-scope backport', () => {
  it('is needed by the installed NestJS (when this fails, Nest binds without the accessor: delete the backport)', () => {
    expect(needsBackport(InterceptorsConsumer.prototype.intercept)).toBe(true);
    // What the backport removes: AsyncResource.bind's per-function accessor.
    const bound = AsyncResource.bind(() => 1);
    expect(typeof Object.getOwnPropertyDescriptor(bound, 'asyncResource')?.get).toBe('function');
  });

  it('binds without any accessor, in the context it was bound in', async () => {
    const bound = store.run('bound here', () => bindAsyncScope(() => store.getStore()));
    expect(Object.getOwnPropertyDescriptor(bound, 'asyncResource')).toBeUndefined();
    expect(Object.getOwnPropertyNames(bound).filter((p) => p !== 'length' && p !== 'name')).toEqual(
      [],
    );
    expect(await store.run('elsewhere', async () => bound())).toBe('bound here');
  });

  describe('once applied', () => {
    beforeAll(() => {
      expect(backportInterceptorAsyncScope()).toBe(true);
    });

    it('is applied once', () => {
      expect(needsBackport(InterceptorsConsumer.prototype.intercept)).toBe(false);
      expect(backportInterceptorAsyncScope()).toBe(false);
    });

    it('runs interceptors outermost first and the handler in the request async context', async () => {
      const seen: string[] = [];
      const result = await run([tagging('outer', seen), tagging('inner', seen)], async () => {
        seen.push(`handler: ${store.getStore()}`);
        return 'payment';
      });
      expect(result).toBe('outer(inner(payment))');
      expect(seen).toEqual([
        'outer before: request-1',
        'inner before: request-1',
        'handler: request-1',
        'inner after: request-1',
        'outer after: request-1',
      ]);
    });

    it('calls the handler directly when there is no interceptor', async () => {
      const consumer = new InterceptorsConsumer();
      await expect(
        consumer.intercept(
          [],
          [],
          {},
          () => undefined,
          async () => 'plain',
          'http',
        ),
      ).resolves.toBe('plain');
    });

    it("passes the handler's error to the interceptors' subscribers", async () => {
      const seen: string[] = [];
      await expect(
        run([tagging('outer', seen)], async () => {
          throw new Error('declined');
        }),
      ).rejects.toThrow('declined');
      expect(seen).toEqual(['outer before: request-1']);
    });
  });
});
