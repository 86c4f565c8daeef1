import type { IncomingMessage } from 'node:http';

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
  match(path: string): boolean;
}

/** A route as the Fastify adapter registered it (see http-platform.ts). */
export interface RegisteredRoute {
  methods: string[];
  pattern: RegExp;
}

/** A Nest route path (`/api/v1/payments/:id`) as a RegExp matching concrete paths. */
export function routePattern(url: string): RegExp {
  const segments = url
    .split('/')
    .map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}/?$`, 'i');
}

type AnyRequest = IncomingMessage & {
  path: string;
  app?: { router?: { stack?: RouteLayer[] } };
  server?: { jomaRoutes?: RegisteredRoute[] };
};

/**
 * The methods the app's routes answer on this request's path (empty when
 * no route has the path at all), read from what the HTTP adapter mounted
 * (Express's router, or the routes Fastify registered), so it always agrees
 * with it; used only on the 404 path.
 */
export function allowedMethods(request: unknown): string[] {
  const req = request as AnyRequest;
  const methods = new Set<string>();
  if (req.server?.jomaRoutes) {
    for (const route of req.server.jomaRoutes) {
      if (route.pattern.test(req.path)) for (const m of route.methods) methods.add(m);
    }
  } else {
    for (const layer of req.app?.router?.stack ?? []) {
      // Wildcard routes are middleware mounted for every method (Nest's forRoutes('*')), not endpoints.
      if (!layer.route || layer.route.path.includes('*')) continue;
      let matches = false;
      try {
        matches = layer.match(req.path);
      } catch {
        matches = false;
      }
      if (!matches) continue;
      for (const [m, on] of Object.entries(layer.route.methods))
        if (on) methods.add(m.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].filter((m) => m !== '_ALL').sort();
}
