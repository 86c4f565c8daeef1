import type { DynamicModule, Provider } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { type ClsMiddlewareOptions, ContextClsStoreMap } from 'nestjs-cls';

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

/**
 * The middleware that opens each request's context. `saveReq`: the audit log
 * reads who acted (and from where) from the request. `setup` forgets the
 * request in nestjs-cls's WeakMap of request -> store, which only its guard
 * and interceptor read (dropped above): V8's scavenges hold a WeakMap's
 * values strongly, and the store holds the request, so every request would
 * survive the scavenges until a full collection and be promoted on the way
 * (~5 KB a request; bench/README.md, "Request context").
 */
export const clsMiddlewareOptions: ClsMiddlewareOptions = {
  mount: true,
  saveReq: true,
  setup: (_cls, req) => ContextClsStoreMap.setByRaw(req, undefined as never),
};
