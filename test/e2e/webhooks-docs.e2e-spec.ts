import { ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort } from '../../src/common/net/free-port';
import { createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import {
  createEndpoint,
  deliveriesOfEvent,
  eventually,
  recordEvent,
  workersOf,
} from '../support/webhooks';

/** The Node consumer of docs/webhooks.md, "Verifying signatures", exactly as printed. */
function documentedConsumer(): string {
  const doc = readFileSync(join(__dirname, '../../docs/webhooks.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Verifying signatures'));
  const m = /```js\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error('no js block under "Verifying signatures"');
  return m[1];
}

async function post(port: number, body: string, headers: Record<string, string>): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, headers });
  await res.arrayBuffer();
  return res.status;
}

describe('webhooks: the documented Node consumer against real deliveries', () => {
  let t: TestApp;
  let app: CreatedApp;
  let child: ChildProcess | null = null;
  let dir: string;

  beforeAll(async () => {
    t = await createTestApp({ config: { webhookTimeoutMs: 3000, webhookPollIntervalMs: 100 } });
    await workersOf(t).start();
    app = await createApp(t);
    dir = mkdtempSync(join(tmpdir(), 'joma-docs-consumer-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies and acknowledges real deliveries, keeps running, and rejects forged or stale ones', async () => {
    const port = await freePort();
    const code = documentedConsumer();
    expect(code).toContain('.listen(8080)');
    const file = join(dir, 'consumer.js');
    writeFileSync(file, code.replace('.listen(8080)', `.listen(${port}, '127.0.0.1')`));

    const endpoint = await createEndpoint(t, app.TEST, { url: `http://127.0.0.1:${port}/joma` });
    child = spawn(process.execPath, [file], {
      env: { ...process.env, JOMA_WEBHOOK_SECRET: endpoint.secret },
      stdio: 'ignore',
    });
    await eventually(
      async () =>
        post(port, '{}', {}).then(
          (s) => s === 400,
          () => false,
        ),
      10_000,
      'documented consumer listening',
    );

    for (const [i, type] of (['payment.succeeded', 'invoice.paid'] as const).entries()) {
      const eventId = await recordEvent(t, { appId: app.id, mode: 'TEST' }, type, { n: i });
      const [d] = await eventually(
        async () => {
          const rows = await deliveriesOfEvent(t, eventId);
          return rows[0]?.attempts ? rows : null;
        },
        10_000,
        `attempt of ${type}`,
      );
      expect([type, d.status, d.last_status_code, d.last_error]).toEqual([
        type,
        'DELIVERED',
        200,
        null,
      ]);
    }
    expect(child.exitCode).toBeNull();

    const body = '{"id":1,"type":"payment.succeeded"}';
    const now = Math.floor(Date.now() / 1000);
    const sign = (secret: string, ts: number) =>
      `t=${ts},v1=${createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex')}`;
    const send = (sig: string) => post(port, body, { 'X-Webhook-Signature-V2': sig });
    expect(await send(sign(endpoint.secret, now))).toBe(200);
    expect(await send(sign('whsec_wrong', now))).toBe(400);
    expect(await send(sign(endpoint.secret, now - 301))).toBe(400);
  });
});
