import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { createTestApp, TestApp } from '../support/test-app';

const run = promisify(execFile);

/** The bash blocks of the README's "Try it" section, in order. */
function readmeWalk(readme: string): string[] {
  const start = readme.indexOf('### Try it');
  const end = readme.indexOf('\n## ', start);
  const section = readme.slice(start, end);
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/**
 * The README's walk, typed literally: its commands run as a bash script
 * against a test instance (only the base URL differs); step 4, the
 * customer's clicks in a browser, is done over HTTP in between.
 */
describe('the README walk, as a script', () => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    t = await createTestApp({
      config: { adminEmail: 'admin@example.com', adminPassword: 'change-me-now' },
    });
    dir = mkdtempSync(join(tmpdir(), 'joma-readme-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs in, creates an app, issues an invoice, listens, is paid, receives the events, and lists them', async () => {
    const blocks = readmeWalk(readFileSync(resolve(__dirname, '..', '..', 'README.md'), 'utf8'));
    expect(blocks).toHaveLength(3);
    expect(blocks[0]).toContain('B=http://localhost:3000\n');
    const [setup, listenInBackground, events] = blocks.map((b) =>
      b.replace('B=http://localhost:3000\n', `B=${t.baseUrl}\n`),
    );
    expect(listenInBackground.trim()).toMatch(/^npm run -s joma -- listen .*&$/);
    // As the reader waits for it: joma listen has said Ready. before they pay.
    const waitFor = (text: string, seconds: number) =>
      `for _ in $(seq 1 ${seconds * 10}); do grep -q '${text}' "$LISTEN" && break; sleep 0.1; done; grep -q '${text}' "$LISTEN"`;
    // Step 5 as the customer's browser does it: Pay on the pay page, then Pay on the sandbox checkout.
    const customerPays = [
      'URL=$(tail -n 1 "$OUT")',
      'CHECKOUT=$(curl -s -o /dev/null -w "%{redirect_url}" -X POST "$URL")',
      // The browser follows the checkout's 303 back to Joma, which verifies with the gateway.
      'curl -s -L -o /dev/null -w "%{http_code} %{url_effective}\\n" "$CHECKOUT" -d outcome=pay >> "$STEPS"',
    ].join('\n');
    const script = [
      'set -euo pipefail',
      `OUT=${join(dir, 'out.txt')}`,
      `STEPS=${join(dir, 'steps.txt')}`,
      `LISTEN=${join(dir, 'listen.txt')}`,
      "trap 'kill %1 2>/dev/null || true' EXIT",
      `{\n${setup}\n} > "$OUT"`,
      `{\n${listenInBackground}\n} > "$LISTEN" 2>&1`,
      waitFor('Ready.', 90),
      customerPays,
      waitFor('invoice.paid', 20),
      events,
    ].join('\n');
    writeFileSync(join(dir, 'walk.sh'), script);
    // From the repository, as the reader types it (npm run needs its package.json).
    const { stdout } = await run('bash', [join(dir, 'walk.sh')], {
      cwd: resolve(__dirname, '..', '..'),
    });
    const payableUrl = readFileSync(join(dir, 'out.txt'), 'utf8').trim();
    expect(payableUrl).toMatch(new RegExp(`^${t.baseUrl}/pay/[A-Za-z0-9_-]{20,64}$`));
    expect(readFileSync(join(dir, 'steps.txt'), 'utf8').trim()).toBe(`200 ${payableUrl}`);
    expect(stdout.trim().split('\n')).toEqual([
      'invoice.issued',
      'payment.succeeded',
      'invoice.paid',
    ]);
    // joma listen received what happened after it started, in order.
    const received = readFileSync(join(dir, 'listen.txt'), 'utf8')
      .split('\n')
      .flatMap((l) => /--> ([a-z_.]+) \[evt_\d+\]/.exec(l)?.[1] ?? []);
    expect(received).toEqual(['payment.succeeded', 'invoice.paid']);

    const page = await t.http().get(new URL(payableUrl).pathname);
    expect(page.text).toContain('This invoice is paid');
    expect(page.text).toContain('for Rahim Uddin');
    const rows = await t.db.query(`SELECT status, amount_paid_minor FROM invoices`);
    expect(rows.rows).toEqual([{ status: 'PAID', amount_paid_minor: 90000 }]);
  }, 150_000);

  it('a second run issues a second invoice (fresh Idempotency-Key), not a 422', async () => {
    const [setup] = readmeWalk(
      readFileSync(resolve(__dirname, '..', '..', 'README.md'), 'utf8'),
    ).map((b) => b.replace('B=http://localhost:3000\n', `B=${t.baseUrl}\n`));
    const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${setup}`], { cwd: dir });
    expect(stdout.trim()).toMatch(/\/pay\/[A-Za-z0-9_-]{20,64}$/);
    const rows = await t.db.query(`SELECT count(*)::int AS n FROM invoices`);
    expect(rows.rows[0].n).toBe(2);
  }, 60_000);
});
