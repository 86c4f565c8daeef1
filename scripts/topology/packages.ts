import { execFileSync, spawnSync } from 'node:child_process';

/** What the drill runs, and the Debian package each comes from. */
export const NEEDED: { bin: string; pkg: string }[] = [
  { bin: '/usr/sbin/haproxy', pkg: 'haproxy' },
  { bin: '/usr/sbin/pgbouncer', pkg: 'pgbouncer' },
  { bin: '/usr/bin/patroni', pkg: 'patroni' },
  { bin: '/usr/bin/etcd', pkg: 'etcd-server' },
  { bin: '/usr/bin/etcdctl', pkg: 'etcd-client' },
  { bin: '/usr/lib/postgresql/15/bin/postgres', pkg: 'postgresql-15' },
];

const installed = (pkg: string): boolean =>
  spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' }).stdout.includes(
    'install ok installed',
  );

/**
 * Installs, from Debian's own repositories, the packages whose programs are
 * missing (as root: `apt-get update` first, then `apt-get install
 * --no-install-recommends`). Says what it installs; installs nothing when
 * everything is there. The packages' own services are not started: the
 * Debian packages of etcd-server and pgbouncer enable a system service,
 * which policy-rc.d (exit 101) keeps from starting during the install.
 */
export function ensurePackages(log: (line: string) => void): void {
  const missing = NEEDED.filter((n) => !installed(n.pkg)).map((n) => n.pkg);
  if (!missing.length) return;
  if (process.getuid?.() !== 0)
    throw new Error(
      `missing packages (${missing.join(' ')}): run the drill as root to install them`,
    );
  log(`installing from Debian: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
  withServicesHeld(() =>
    execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], {
      stdio: 'inherit',
      env,
    }),
  );
}

/** The installed version of a Debian package ("1.18.0-1+deb12u1"), or undefined. */
export function packageVersion(pkg: string): string | undefined {
  const out = spawnSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8' });
  return out.status === 0 && out.stdout ? out.stdout : undefined;
}

/** Runs `install` with /usr/sbin/policy-rc.d refusing service starts (only if none exists). */
function withServicesHeld(install: () => void): void {
  const policy = '/usr/sbin/policy-rc.d';
  const ours = spawnSync('test', ['-e', policy]).status !== 0;
  if (ours)
    execFileSync('sh', [
      '-c',
      `printf '#!/bin/sh\\nexit 101\\n' > ${policy} && chmod +x ${policy}`,
    ]);
  try {
    install();
  } finally {
    if (ours) execFileSync('rm', ['-f', policy]);
  }
}
