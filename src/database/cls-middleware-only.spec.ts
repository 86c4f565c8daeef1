import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import type { DynamicModule, Provider } from '@nestjs/common';
import { ClsModule } from 'nestjs-cls';
import { clsMiddlewareOnly } from './cls-middleware-only';

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
