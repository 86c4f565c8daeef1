import type { Request } from 'express';

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
  match(path: string): boolean;
}

/**
 * The methods the app's routes answer on this request's path (empty when
 * no route has the path at all). Read from Express's router, so it always
 * agrees with what is mounted; used only on the 404 path.
 */
export function allowedMethods(req: Request): string[] {
  const stack = (req.app as unknown as { router?: { stack?: RouteLayer[] } }).router?.stack ?? [];
  const methods = new Set<string>();
  for (const layer of stack) {
    // Wildcard routes are middleware mounted for every method (Nest's forRoutes('*')), not endpoints.
    if (!layer.route || layer.route.path.includes('*')) continue;
    let matches = false;
    try {
      matches = layer.match(req.path);
    } catch {
      matches = false;
    }
    if (!matches) continue;
    for (const [m, on] of Object.entries(layer.route.methods)) if (on) methods.add(m.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].filter((m) => m !== '_ALL').sort();
}
