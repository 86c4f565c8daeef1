import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One file of the built dashboard, with its precompressed copies. */
export interface DashboardFile {
  type: string;
  identity: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The folder scripts/build-dashboard.mjs writes: dashboard/dist beside package.json. */
export function dashboardDir(from = __dirname): string | null {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) {
      const out = join(dir, 'dashboard', 'dist');
      return existsSync(join(out, 'index.html')) ? out : null;
    }
  }
  return null;
}

/** Every file of the build, read once (a few tens of KB). */
export function loadDashboard(dir: string): Map<string, DashboardFile> {
  const files = new Map<string, DashboardFile>();
  for (const name of readdirSync(dir)) {
    const ext = name.slice(name.lastIndexOf('.'));
    const type = TYPES[ext];
    if (!type) continue;
    const read = (suffix: string) =>
      existsSync(join(dir, name + suffix)) ? readFileSync(join(dir, name + suffix)) : undefined;
    files.set(name, {
      type,
      identity: readFileSync(join(dir, name)),
      gzip: read('.gz'),
      br: read('.br'),
    });
  }
  return files;
}

/** The smallest encoding the client accepts (br, then gzip), by its Accept-Encoding. */
export function pickEncoding(
  file: DashboardFile,
  acceptEncoding: string | undefined,
): { body: Buffer; encoding?: 'br' | 'gzip' } {
  const accepts = (name: string) =>
    (acceptEncoding ?? '')
      .split(',')
      .map((p) => p.trim().split(';'))
      .some(
        ([token, ...params]) =>
          token === name && !params.some((q) => /^q=0(\.0*)?$/.test(q.trim())),
      );
  if (file.br && accepts('br')) return { body: file.br, encoding: 'br' };
  if (file.gzip && accepts('gzip')) return { body: file.gzip, encoding: 'gzip' };
  return { body: file.identity };
}
