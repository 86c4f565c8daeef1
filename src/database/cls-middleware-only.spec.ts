import { APP_GUARD, APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import type { DynamicModule, INestApplicationContext, Provider } from '@nestjs/common';
import {
  CLS_REQ,
  ClsMiddleware,
  ClsModule,
  ClsServiceManager,
  ContextClsStoreMap,
} from 'nestjs-cls';
import { clsMiddlewareOnly, clsMiddlewareOptions } from './cls-middleware-only';

/** Every provider token of a dynamic module and of the dynamic modules it imports. */
function tokens(m: DynamicModule): unknown[] {
  const own = (m.providers ?? []).map((p: Provider) => (typeof p === 'object' ? p.provide : p));
  const imported = (m.imports ?? []).flatMap((i) =>
    typeof i === 'object' && 'module' in i ? tokens(i as DynamicModule) : [],
  );
  return [...own, ...imported];
}

describe('clsMiddlewareOnly', () => {
  const module = ClsModule.forRoot({ global: true, middleware: { mount: true } });

  it('drops the global guard and interceptor nestjs-cls registers (they would pass through)', () => {
    // If a nestjs-cls release stops registering them, this says the wrapper can go.
    expect(tokens(module)).toEqual(expect.arrayContaining([APP_GUARD, APP_INTERCEPTOR]));
    const slim = tokens(clsMiddlewareOnly(module));
    expect(slim).not.toContain(APP_GUARD);
    expect(slim).not.toContain(APP_INTERCEPTOR);
  });

  it('keeps every other provider, and the modules themselves', () => {
    const slim = clsMiddlewareOnly(module);
    expect(slim.module).toBe(module.module);
    expect(slim.global).toBe(true);
    expect(tokens(slim)).toEqual(
      tokens(module).filter((p) => p !== APP_GUARD && p !== APP_INTERCEPTOR),
    );
    expect(tokens(slim).length).toBeGreaterThan(0);
  });
});

describe('clsMiddlewareOptions', () => {
  // nestjs-cls's middleware needs its module started (its plugin hooks).
  let context: INestApplicationContext;
  beforeAll(async () => {
    context = await NestFactory.createApplicationContext(ClsModule.forRoot({ global: true }), {
      logger: false,
    });
  });
  afterAll(() => context.close());

  /** nestjs-cls's own middleware with these options, on a request; what the handler sees of CLS. */
  async function through(options: typeof clsMiddlewareOptions, req: object) {
    const mw = new ClsMiddleware(options);
    return new Promise<unknown>(
      (done, fail) =>
        void mw.use(req, {}, (err?: unknown) =>
          err ? fail(err) : done(ClsServiceManager.getClsService().get(CLS_REQ)),
        ),
    );
  }

  it('keeps the request in the context (the audit log reads it) but not in the WeakMap', async () => {
    const req = { url: '/api/v1/payments' };
    await expect(through(clsMiddlewareOptions, req)).resolves.toBe(req);
    expect(ContextClsStoreMap.getByRaw(req)).toBeUndefined();
  });

  it("without the setup, nestjs-cls's WeakMap holds a store that holds the request", async () => {
    // If a release stops filing requests there, this says the setup can go.
    const req = { url: '/api/v1/payments' };
    const { setup: _, ...without } = clsMiddlewareOptions;
    await through(without, req);
    expect(ContextClsStoreMap.getByRaw(req)).toEqual(expect.objectContaining({ [CLS_REQ]: req }));
  });
});
