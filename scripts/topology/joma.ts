import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import type { PortPlan } from './ports';
import { alive, getJson, type Started, Supervisor, until } from './processes';

export interface JomaSettings {
  /** Through PgBouncer: requests and workers. */
  databaseUrl: string;
  /** Straight to the primary (HAProxy's primary port), bypassing PgBouncer: LISTEN and the migration lock. */
  directUrl: string;
  /** The replicas (HAProxy's replica port): lists, exports, the overview. */
  readUrl: string;
  /** DB_PREPARED_STATEMENTS: false behind a PgBouncer older than 1.21 (no max_prepared_statements). */
  preparedStatements: boolean;
  jwtSecret: string;
  encryptionKey: string;
  adminEmail: string;
  adminPassword: string;
}

/** `npm start`'s build step: compiles dist/ (and the dashboard) only when a source is newer. */
export function buildIfStale(repo: string): void {
  execFileSync(process.execPath, [join(repo, 'scripts/build-if-stale.mjs')], {
    cwd: repo,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/**
 * Joma's replicas as `npm start` runs them (`node dist/src/main.js`), each
 * on its own loopback port behind HAProxy, with the settings
 * docker-compose.ha.yml gives them.
 */
export class JomaReplicas {
  readonly processes: (Started | undefined)[] = [];

  constructor(
    private readonly sup: Supervisor,
    private readonly repo: string,
    private readonly ports: PortPlan,
    private readonly settings: JomaSettings,
  ) {}

  env(i: number): NodeJS.ProcessEnv {
    const s = this.settings;
    return {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(this.ports.joma[i]),
      METRICS_PORT: '0',
      DATABASE_URL: s.databaseUrl,
      DATABASE_DIRECT_URL: s.directUrl,
      DATABASE_READ_URL: s.readUrl,
      DB_PREPARED_STATEMENTS: String(s.preparedStatements),
      JWT_SECRET: s.jwtSecret,
      ENCRYPTION_KEY: s.encryptionKey,
      ADMIN_EMAIL: s.adminEmail,
      ADMIN_PASSWORD: s.adminPassword,
      PUBLIC_BASE_URL: `http://127.0.0.1:${this.ports.haproxyHttp}`,
      // Above HAProxy's idle server connections (deploy/ha/haproxy.cfg).
      HTTP_KEEP_ALIVE_TIMEOUT_S: '65',
      RATE_LIMIT_REPLICAS: '3',
      TRUST_PROXY: 'loopback',
      // The drill's receiver is on loopback over http (development settings, as docs/webhooks.md says).
      WEBHOOK_TEST_ALLOWED_SCHEMES: 'http,https',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    };
  }

  start(i: number): Started {
    const p = this.sup.start(`joma${i + 1}`, process.execPath, ['dist/src/main.js'], {
      env: this.env(i),
      cwd: this.repo,
    });
    this.processes[i] = p;
    return p;
  }

  async ready(i: number, timeoutMs = 90_000): Promise<void> {
    const p = this.processes[i];
    if (!p) throw new Error(`joma${i + 1} not started`);
    await until(
      `joma${i + 1} ready`,
      async () =>
        alive(p) && (await getJson(`http://127.0.0.1:${this.ports.joma[i]}/readyz`)).status === 200,
      timeoutMs,
      250,
    );
  }

  /** The first replica migrates alone; the other two start once it is ready. */
  async startAll(): Promise<void> {
    this.start(0);
    await this.ready(0);
    this.start(1);
    this.start(2);
    await Promise.all([this.ready(1), this.ready(2)]);
  }

  async kill(i: number): Promise<void> {
    const p = this.processes[i];
    if (p) await this.sup.kill(p);
    this.processes[i] = undefined;
  }
}
