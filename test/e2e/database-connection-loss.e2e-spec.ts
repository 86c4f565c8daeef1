import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

import { Pool } from 'pg';

import { freePort } from '../../src/common/net/free-port';
import { type Run, startMain, until } from '../support/main-process';
import { createTestDatabase } from '../support/test-app';

/**
 * Issue 43, finding 12: PostgreSQL terminating the service's connections
 * (an administrator, a failover) must cost the requests using them a 503,
 * never the process. The real entry point runs in a child process under
 * load while every one of its backends is terminated again and again.
 */
describe('database connections lost under load', () => {
  let url: string;
  let port: number;
  let run: Run;
  let db: Pool;
  const admin = { email: 'ops@joma.test', password: 'connection-loss-123' };
  const base = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    url = await createTestDatabase('connloss');
    port = await freePort();
    db = new Pool({ connectionString: url, max: 2 });
    run = startMain({
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      RATE_LIMIT_PER_SECOND: '0',
    });
    await until(async () => {
      if (run.child.exitCode !== null) throw new Error(`exited: ${run.err.join('\n')}`);
      return fetch(`${base()}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
    });
  }, 90_000);

  afterAll(async () => {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
    await db.end();
  });

  async function json(path: string, init: RequestInit = {}) {
    const res = await fetch(`${base()}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  it('answers 503 to the requests it cannot serve, keeps running, and serves again', async () => {
    const login = await json('/api/v1/auth/login', {
      method: 'POST',
      body: JSON.stringify(admin),
    });
    expect(login.status).toBe(200);
    const created = await json('/api/v1/admin/apps', {
      method: 'POST',
      headers: { authorization: `Bearer ${login.body.data.token}` },
      body: JSON.stringify({ name: 'Connection loss' }),
    });
    expect(created.status).toBe(201);
    const creds = created.body.data.credentials.find((c: { mode: string }) => c.mode === 'TEST');
    const key = { 'x-api-key': creds.apiKey, 'x-api-secret': creds.apiSecret };

    let stop = false;
    let terminated = 0;
    const killer = (async () => {
      while (!stop) {
        const r = await db.query(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
              AND application_name LIKE 'joma%'`,
        );
        terminated += r.rows[0].n as number;
        await new Promise((ok) => setTimeout(ok, 40 + Math.random() * 60));
      }
    })();
    const statuses: number[] = [];
    const bodies: unknown[] = [];
    const client = async (n: number) => {
      for (let i = 0; i < 60; i++) {
        const res =
          i % 2 === 0
            ? await json('/api/v1/payments', {
                method: 'POST',
                headers: key,
                body: JSON.stringify({ amountMinor: 1000 + n, customerReference: `c-${n}-${i}` }),
              })
            : await json('/api/v1/payments?size=5', { headers: key });
        statuses.push(res.status);
        if (res.status !== 200 && res.status !== 201) bodies.push(res.body);
      }
    };
    await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(client));
    stop = true;
    await killer;

    // The process lived through it.
    expect(run.child.exitCode).toBeNull();
    expect(terminated).toBeGreaterThan(10);
    // Every answer is a success or a 503 envelope; never a 500, never a dropped socket.
    const unhandled = run.out.filter((l) => l.includes('Unhandled'));
    expect(unhandled).toEqual([]);
    const seen = [...new Set(statuses)].sort();
    for (const s of seen) expect([200, 201, 503]).toContain(s);
    for (const b of bodies)
      expect(b).toMatchObject({ meta: { success: false, errorCode: 'SERVICE_UNAVAILABLE' } });
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    // And once the database is left alone, it serves again.
    await until(
      async () => (await json('/api/v1/payments?size=1', { headers: key })).status === 200,
    );
    const after = await json('/api/v1/payments', {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ amountMinor: 5000, customerReference: 'after' }),
    });
    expect(after.status).toBe(201);
  }, 60_000);
});

/**
 * Issue 56: a replica started while the database drops its connections (a
 * failover under way) waits for it, within DB_CONNECT_RETRY_MS, instead of
 * exiting at the first refusal. A TCP proxy in front of the real server
 * drops the first connections as they arrive, then forwards.
 */
describe('start-up while the database drops connections', () => {
  const DROPPED = 3;
  let proxy: Server;
  let seen = 0;
  const sockets = new Set<Socket>();

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((ok) => proxy?.close(ok));
  });

  it('retries connecting and migrating with back-off, logging each failed try, and comes up', async () => {
    const url = new URL(await createTestDatabase('startretry'));
    proxy = createServer((client) => {
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      if (++seen <= DROPPED) {
        client.destroy();
        return;
      }
      const server = connect(Number(url.port || 5432), url.hostname);
      sockets.add(server);
      server.on('close', () => sockets.delete(server));
      client.pipe(server).pipe(client);
      client.on('error', () => server.destroy());
      server.on('error', () => client.destroy());
    });
    await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String((proxy.address() as AddressInfo).port);
    const port = await freePort();
    const run = startMain({
      DATABASE_URL: proxied.toString(),
      PORT: String(port),
      HOST: '127.0.0.1',
      DB_CONNECT_RETRY_MS: '30000',
    });
    try {
      await until(async () => {
        if (run.child.exitCode !== null) throw new Error(`exited: ${run.err.join('\n')}`);
        return fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        );
      });
      const retries = run.out
        .map((l) => JSON.parse(l) as { level: number; msg: string })
        .filter((m) => /^Database: attempt \d+ failed/.test(m.msg));
      expect(retries.map((m) => m.msg.match(/attempt (\d+)/)![1])).toEqual(['1', '2', '3']);
      expect(retries.every((m) => m.level === 40)).toBe(true);
      expect(retries[0].msg).toMatch(/connection lost.*trying again in 250 ms/i);
      expect(run.err).toEqual([]);
      expect(seen).toBeGreaterThan(DROPPED);
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
      await run.exited;
    }
  }, 90_000);
});

/**
 * Issue 56: what start-up does after the migrations (the pool's first
 * connection, the workers' connections, the first super admin, the change
 * feed) meets a database that drops connections the same way, and waits for
 * it within DB_CONNECT_RETRY_MS with the one retry (`withStartupRetry`):
 * each failed try a warning, no error, and the service comes up. A TCP
 * proxy reads each connection's `application_name` from its startup packet
 * and drops, after the migrations went through, the first connections of
 * the pool and of the workers, the first queries of the admin bootstrap
 * (on `admin_users`) and the change feed's first connection.
 */
describe('start-up hooks after the migrations while the database drops connections', () => {
  let proxy: Server;
  const sockets = new Set<Socket>();
  const dropped: string[] = [];

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((ok) => proxy?.close(ok));
  });

  /** The parameters of a PostgreSQL StartupMessage (length, protocol 3.0, then name/value pairs). */
  const startupParams = (packet: Buffer): Record<string, string> => {
    const fields = packet.subarray(8, packet.readUInt32BE(0)).toString('utf8').split('\0');
    const params: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i]) params[fields[i]] = fields[i + 1];
    return params;
  };

  it('retries them with back-off, logging each failed try as a warning, and comes up with its admin', async () => {
    const url = new URL(await createTestDatabase('hookretry'));
    // Connections to drop at connect, by application_name; admin_users queries to cut off.
    const dropAtConnect: Record<string, number> = {
      joma: 2,
      'joma-workers': 2,
      'joma-change-feed': 1,
    };
    let adminQueriesToCut = 2;
    proxy = createServer((client) => {
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      client.on('error', () => undefined);
      let head = Buffer.alloc(0);
      const onStartup = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        if (head.length < 4 || head.length < head.readUInt32BE(0)) return;
        client.off('data', onStartup);
        const app = startupParams(head).application_name ?? '';
        if ((dropAtConnect[app] ?? 0) > 0) {
          dropAtConnect[app]--;
          dropped.push(`${app} at connect`);
          client.destroy();
          return;
        }
        const server = connect(Number(url.port || 5432), url.hostname);
        sockets.add(server);
        server.on('close', () => sockets.delete(server));
        server.on('error', () => client.destroy());
        client.on('error', () => server.destroy());
        server.write(head);
        client.on('data', (data: Buffer) => {
          if (app === 'joma' && adminQueriesToCut > 0 && data.includes('admin_users')) {
            adminQueriesToCut--;
            dropped.push('joma on admin_users');
            client.destroy();
            server.destroy();
            return;
          }
          server.write(data);
        });
        server.pipe(client);
      };
      client.on('data', onStartup);
    });
    await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String((proxy.address() as AddressInfo).port);
    const port = await freePort();
    const run = startMain({
      DATABASE_URL: proxied.toString(),
      PORT: String(port),
      HOST: '127.0.0.1',
      DB_CONNECT_RETRY_MS: '30000',
      ADMIN_EMAIL: 'hooks@joma.test',
      ADMIN_PASSWORD: 'hooks-retried-123',
    });
    try {
      await until(async () => {
        if (run.child.exitCode !== null) throw new Error(`exited: ${run.err.join('\n')}`);
        return fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        );
      });
      await until(() => run.out.some((l) => l.includes('Created the first super admin')), 20_000);
      // The app's own lines go out in batches (every 100 ms): all six warnings, then the checks.
      await until(() => run.out.filter((l) => / attempt \d+ failed/.test(l)).length >= 6, 5_000);
      expect(dropped.sort()).toEqual([
        'joma at connect',
        'joma at connect',
        'joma on admin_users',
        'joma on admin_users',
        'joma-change-feed at connect',
        'joma-workers at connect',
        'joma-workers at connect',
      ]);
      const logged = run.out.map((l) => JSON.parse(l) as { level: number; msg: string });
      const tries = (step: string) =>
        logged
          .filter((m) => m.msg.startsWith(`${step}: attempt `))
          .map((m) => [m.level, m.msg.match(/attempt (\d+) failed \(([^)]*\)?)/)?.slice(1)]);
      for (const step of ['Connection pool', 'Worker connections', 'Admin bootstrap'])
        expect([step, tries(step)]).toEqual([
          step,
          [
            [40, ['1', expect.stringMatching(/^Database connection lost/)]],
            [40, ['2', expect.stringMatching(/^Database connection lost/)]],
          ],
        ]);
      expect(logged.filter((m) => m.level >= 50)).toEqual([]);
      expect(run.err).toEqual([]);
      const login = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'hooks@joma.test', password: 'hooks-retried-123' }),
      });
      expect(login.status).toBe(200);
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
      await run.exited;
    }
  }, 90_000);
});
