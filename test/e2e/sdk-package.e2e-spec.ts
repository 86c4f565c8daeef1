import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

const run = promisify(execFile);
const repo = resolve(__dirname, '..', '..');
const clientDir = join(repo, 'clients', 'typescript');
const tsc = join(repo, 'node_modules', '.bin', 'tsc');

/** The pagination snippet of docs/sdk.md ("**Pagination.**"), as a reader would copy it. */
function documentedPagination(): string {
  const doc = readFileSync(join(repo, 'docs', 'sdk.md'), 'utf8');
  const block = /\*\*Pagination\.\*\*[\s\S]*?```ts\n([\s\S]*?)\n\s*```/.exec(doc);
  if (!block) throw new Error('docs/sdk.md has no pagination snippet');
  return block[1].replace(/^ {2}/gm, '');
}

/** A strict integration, as a developer would write it in a project of their own. */
const INTEGRATION = `import { createJomaClient, paginate, unwrap, unwrapPage, type EventOf, type WebhookEvent } from '@joma/client';

const env = process.env;
const joma = createJomaClient({
  baseUrl: env.JOMA_URL!,
  apiKey: env.JOMA_KEY!,
  apiSecret: env.JOMA_SECRET!,
  timeoutMs: 10_000,
});

const invoice = await unwrap(
  joma.POST('/api/v1/invoices', {
    body: {
      customerReference: 'cust-pack',
      lineItems: [{ description: 'Notebook', qty: 2, unitAmountMinor: 75000 }],
    },
  }),
);
const payment = await unwrap(
  joma.POST('/api/v1/payments', { body: { invoiceId: invoice.id, amountMinor: invoice.totalMinor } }),
);
await unwrap(
  joma.POST('/api/v1/test-helpers/payments/{id}/settle', {
    params: { path: { id: payment.id } },
    body: { outcome: 'succeeded' },
  }),
);
const paid = await unwrap(joma.GET('/api/v1/invoices/{id}', { params: { path: { id: invoice.id } } }));

/** What a webhook handler does with the typed union: narrowing by type. */
function amountOf(event: WebhookEvent): number | null {
  switch (event.type) {
    case 'invoice.paid':
      return event.data.amount_paid_minor;
    case 'payment.succeeded':
      return event.data.amount_minor - event.data.excess_minor;
    default:
      return null;
  }
}
const events = await unwrap(joma.GET('/api/v1/events', { params: { query: { order: 'asc' } } }));
const paidEvent = events.find((e) => e.type === 'invoice.paid')!;
const asDelivered: EventOf<'invoice.paid'> = {
  id: paidEvent.id,
  type: 'invoice.paid',
  created_at: paidEvent.createdAt,
  mode: 'TEST',
  app_id: paidEvent.applicationId,
  schema_version: 1,
  data: paidEvent.data as EventOf<'invoice.paid'>['data'],
};
// docs/sdk.md's pagination pattern, as documented (compiled with exactOptionalPropertyTypes).
${documentedPagination()}
console.log(JSON.stringify({ status: paid.status, amount: amountOf(asDelivered), types: events.map((e) => e.type), paid: paidNumbers.length }));
`;

/** What must not compile: a misspelled body member, an unknown header, an unknown option. */
const MISTAKES = `import { createJomaClient } from '@joma/client';
const joma = createJomaClient({ baseUrl: 'http://localhost:3000', apiKey: 'k', apiSecret: 's' });
void joma.POST('/api/v1/invoices', { body: { customerRefrence: 'c', lineItems: [] } });
void joma.GET('/api/v1/invoices', { headers: { 'Idempotency-Kye': 'x' } });
void joma.GET('/api/v1/invoices', { timeout: 5 });
`;

/**
 * The client as a package: built, packed, installed from the tarball in a
 * project outside the repository (its own dependencies), type-checked
 * strictly, and run against a live test instance, as ESM and CommonJS.
 */
describe('@joma/client as a package', () => {
  let t: TestApp;
  let app: CreatedApp;
  let scratch: string;
  let files: string[];
  let typeErrors: string[];

  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    scratch = mkdtempSync(join(tmpdir(), 'joma-client-scratch-'));
    // Built when stale (as `npm run joma` does; .ci/run has just built it).
    await run('node', [join(repo, 'scripts', 'joma-cli.mjs'), '--help'], { cwd: repo });
    const packed = await run('npm', ['pack', '--json', '--pack-destination', scratch], {
      cwd: clientDir,
    });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    files = info.files.map((f) => f.path);
    writeFileSync(
      join(scratch, 'package.json'),
      JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
    );
    await run(
      'npm',
      ['install', join(scratch, info.filename), '--no-audit', '--no-fund', '--prefer-offline'],
      { cwd: scratch },
    );
    mkdirSync(join(scratch, 'src'));
    writeFileSync(join(scratch, 'src', 'integration.ts'), INTEGRATION);
    const tsconfig = (include: string[]) =>
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          outDir: 'out',
          typeRoots: [join(repo, 'node_modules', '@types')],
          types: ['node'],
          skipLibCheck: false,
        },
        include,
      });
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      tsconfig(['src/integration.ts', 'src/mistakes.ts']),
    );
    writeFileSync(join(scratch, 'src', 'mistakes.ts'), MISTAKES);
    // One strict type-check of both files; the JS is written whatever the errors.
    const checked = await run(tsc, ['-p', 'tsconfig.json'], { cwd: scratch }).catch(
      (e: { stdout: string }) => e,
    );
    typeErrors = checked.stdout.split('\n').filter((l) => /error TS\d+/.test(l));
  }, 180_000);
  afterAll(async () => {
    await t.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('the tarball holds the builds, their types, README and LICENSE, and no sources', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'LICENSE',
        'package.json',
        'openapi.json',
        'dist/esm/index.js',
        'dist/esm/index.d.ts',
        'dist/esm/browser.js',
        'dist/cjs/index.js',
        'dist/cjs/index.d.ts',
        'dist/cjs/cli.js',
        'dist/cjs/generated/schema.d.ts',
      ]),
    );
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);
  });

  it('type-checks a strict integration, which then runs against a live instance (ESM)', async () => {
    expect(typeErrors.filter((l) => l.startsWith('src/integration.ts'))).toEqual([]);
    const { stdout } = await run('node', ['out/integration.js'], {
      cwd: scratch,
      env: {
        ...process.env,
        JOMA_URL: t.baseUrl,
        JOMA_KEY: app.TEST.apiKey,
        JOMA_SECRET: app.TEST.apiSecret,
      },
    });
    expect(JSON.parse(stdout)).toEqual({
      status: 'PAID',
      amount: 150000,
      types: ['invoice.issued', 'payment.succeeded', 'invoice.paid'],
      paid: 1,
    });
  }, 60_000);

  it('refuses to compile a misspelled body member, an unknown header and an unknown option', () => {
    const out = typeErrors.filter((l) => l.startsWith('src/mistakes.ts')).join('\n');
    expect(typeErrors.filter((l) => l.startsWith('src/mistakes.ts'))).toHaveLength(3);
    expect(out).toContain("'customerRefrence' does not exist");
    expect(out).toContain("'Idempotency-Kye'' does not exist in type 'CallHeaders'");
    expect(out).toContain("'timeout' does not exist");
  });

  it('loads as CommonJS, gives a browser build without the webhook kit, and ships the joma command', async () => {
    const cjs = await run(
      'node',
      [
        '-e',
        "const c = require('@joma/client'); console.log(typeof c.createJomaClient, typeof c.verifyWebhook)",
      ],
      { cwd: scratch },
    );
    expect(cjs.stdout.trim()).toBe('function function');
    const browser = await run(
      'node',
      [
        '--conditions=browser',
        '--input-type=module',
        '-e',
        "const c = await import('@joma/client'); console.log(typeof c.createJomaClient, typeof c.verifyWebhook)",
      ],
      { cwd: scratch },
    );
    expect(browser.stdout.trim()).toBe('function undefined');
    const help = await run(join(scratch, 'node_modules', '.bin', 'joma'), ['listen', '--help'], {
      cwd: scratch,
    });
    expect(help.stdout).toContain('Usage: joma listen');
  }, 60_000);
});
