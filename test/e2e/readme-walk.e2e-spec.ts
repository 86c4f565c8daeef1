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

  it('logs in, creates an app, issues an invoice, is paid, and lists the three events', async () => {
    const blocks = readmeWalk(readFileSync(resolve(__dirname, '..', '..', 'README.md'), 'utf8'));
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toContain('B=http://localhost:3000\n');
    const [setup, events] = blocks.map((b) =>
      b.replace('B=http://localhost:3000\n', `B=${t.baseUrl}\n`),
    );
    // Step 4 as the customer's browser does it: Pay on the pay page, then Pay on the sandbox checkout.
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
      `{\n${setup}\n} > "$OUT"`,
      customerPays,
      events,
    ].join('\n');
    writeFileSync(join(dir, 'walk.sh'), script);
    const { stdout } = await run('bash', [join(dir, 'walk.sh')], { cwd: dir });
    const payableUrl = readFileSync(join(dir, 'out.txt'), 'utf8').trim();
    expect(payableUrl).toMatch(new RegExp(`^${t.baseUrl}/pay/[A-Za-z0-9_-]{20,64}$`));
    expect(readFileSync(join(dir, 'steps.txt'), 'utf8').trim()).toBe(`200 ${payableUrl}`);
    expect(stdout.trim().split('\n')).toEqual([
      'invoice.issued',
      'payment.succeeded',
      'invoice.paid',
    ]);

    const page = await t.http().get(new URL(payableUrl).pathname);
    expect(page.text).toContain('This invoice is paid');
    expect(page.text).toContain('for Rahim Uddin');
    const rows = await t.db.query(`SELECT status, amount_paid_minor FROM invoices`);
    expect(rows.rows).toEqual([{ status: 'PAID', amount_paid_minor: 90000 }]);
  }, 60_000);

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
