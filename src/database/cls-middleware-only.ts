import type { DynamicModule, Provider } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';

const isEnhancer = (p: Provider) =>
  typeof p === 'object' && (p.provide === APP_GUARD || p.provide === APP_INTERCEPTOR);
const isDynamic = (m: unknown): m is DynamicModule =>
  typeof m === 'object' && m !== null && 'module' in m;

/**
 * `ClsModule.forRoot` registers (in the root module it imports) a global
 * guard and a global interceptor even when only its middleware is mounted,
 * Joma's case: the middleware opens each request's context. Unmounted they
 * pass everything through, yet Nest still runs them on every request: a
 * guard call, and an interceptor level (an async resource, rxjs defer and
 * mergeAll). This drops those two, wherever in the module's imports they are.
 */
export function clsMiddlewareOnly(module: DynamicModule): DynamicModule {
  return {
    ...module,
    providers: module.providers?.filter((p) => !isEnhancer(p)),
    imports: module.imports?.map((m) => (isDynamic(m) ? clsMiddlewareOnly(m) : m)),
  };
}
