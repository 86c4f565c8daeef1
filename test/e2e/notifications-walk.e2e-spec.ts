import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { freePort } from '../../src/common/net/free-port';
import { NotificationWorker } from '../../src/notifications';
import { runDocWalk } from '../support/doc-walk';
import { expectBalancedLedger } from '../support/ledger';
import { until } from '../support/main-process';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * From docs/notifications.md alone a developer sees a real receipt leave the
 * laptop (issue 58): the repository's mail catcher (scripts/mail-catcher.mjs)
 * as the SMTP server, a LIVE payment through the SSLCommerz simulator mounted
 * in the service (SSLCOMMERZ_LIVE_URL pointing at it), and the walk's
 * commands run as typed, printing what the guide says; the catcher prints
 * the receipt as the guide shows it.
 */
describe('the notifications guide walk (a LIVE receipt to the mail catcher), as a script', () => {
  let t: TestApp;
  let catcher: ChildProcess;
  let mailDir: string;
  const caught: string[] = [];
  let worker: NodeJS.Timeout;

  beforeAll(async () => {
    const port = await freePort();
    mailDir = mkdtempSync(join(tmpdir(), 'joma-mail-'));
    catcher = spawn(
      process.execPath,
      [resolve(__dirname, '..', '..', 'scripts', 'mail-catcher.mjs')],
      {
        env: { ...process.env, MAIL_CATCHER_PORT: String(port), MAIL_CATCHER_DIR: mailDir },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    catcher.stdout!.on('data', (chunk: Buffer) => caught.push(chunk.toString()));
    await until(() => caught.join('').includes('Catching mail on'), 20_000);
    t = await createTestApp({
      config: {
        adminEmail: 'admin@example.com',
        adminPassword: 'change-me-now',
        gatewaySimulators: true,
        smtpUrl: `smtp://127.0.0.1:${port}`,
        mailFrom: 'Padma Traders <billing@padma.example>',
      },
    });
    // SSLCOMMERZ_LIVE_URL=http://localhost:3000/simulators/sslcommerz, at this instance's address.
    (t.config as { sslcommerzLiveUrl: string }).sslcommerzLiveUrl =
      `${t.baseUrl}/simulators/sslcommerz`;
    // The notification worker, as `npm start` runs it (every 5 s there; often here).
    worker = setInterval(
      () =>
        void t.app
          .get(NotificationWorker)
          .tick()
          .catch(() => undefined),
      250,
    );
  });
  afterAll(async () => {
    clearInterval(worker);
    await t.close();
    catcher.kill('SIGTERM');
    rmSync(mailDir, { recursive: true, force: true });
  });

  it('prints exactly what docs/notifications.md says, and the catcher prints the receipt', async () => {
    const { printed, promised } = await runDocWalk(t, 'docs/notifications.md', 'Walk:');
    expect(printed).toEqual(promised);
    await expectBalancedLedger(t.db);
    // The catcher's lines the guide shows, then the receipt's text with the amount and the link.
    await until(() => caught.join('').includes('--- mail 1'), 10_000);
    const out = caught.join('');
    const guide = readFileSync(resolve(__dirname, '..', '..', 'docs', 'notifications.md'), 'utf8');
    const shown = /and the catcher's terminal shows[\s\S]*?```\n([\s\S]*?)\.\.\.\n```/.exec(
      guide,
    )![1];
    for (const line of shown.trim().split('\n')) expect(out).toContain(line);
    expect(out).toContain('৳850.00');
    expect(out).toMatch(/\/pay\/[^/\s]+\/receipt\?lang=en/);
    expect(readdirSync(mailDir).filter((f) => f.endsWith('.eml'))).toHaveLength(1);
  }, 60_000);
});
