import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { ErrorCode, httpStatusOf } from '../../src/common/errors/error-code';
import { bearer, createApp, superAdminToken } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

const run = promisify(execFile);
const bin = (name: string) => resolve(__dirname, '..', '..', 'node_modules', '.bin', name);

type Json = Record<string, any>;

/**
 * The served OpenAPI document is what SDKs and API tools are generated
 * from: it must lint clean with Redocly's recommended rules, say exactly who
 * may call what, show true error examples, and generate TypeScript types
 * that compile.
 */
describe('the served OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    t = await createTestApp({ config: { publicBaseUrl: 'https://pay.dhaka-books.test' } });
    const res = await t.http().get('/docs-json');
    expect(res.status).toBe(200);
    doc = res.body as Json;
    dir = mkdtempSync(join(tmpdir(), 'joma-openapi-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Operations, their shared responses ('#/components/responses/...') read in place. */
  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, ops]) =>
      Object.entries(ops as Json).map(([method, op]) => ({
        path,
        method,
        op: {
          ...(op as Json),
          responses: resolvedResponses((op as Json).responses as Json),
        } as Json,
        raw: op as Json,
      })),
    );
  const resolvedResponses = (responses: Json): Json =>
    Object.fromEntries(
      Object.entries(responses).map(([status, res]) => [
        status,
        typeof (res as Json).$ref === 'string'
          ? doc.components.responses[(res as Json).$ref.replace('#/components/responses/', '')]
          : res,
      ]),
    );

  it('lints clean with Redocly recommended rules: no error, no warning', async () => {
    const out = await run(bin('redocly'), ['lint', file, '--format=json'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 32 * 1024 * 1024,
    }).catch((err: { stdout: string }) => err);
    const report = JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('names the server it is served for', () => {
    expect(doc.servers).toEqual([
      { url: 'https://pay.dhaka-books.test', description: 'This Joma instance' },
    ]);
  });

  it('public operations say security: [] and are exactly health, readiness, login and gateway callbacks (signed by the gateway)', () => {
    const open = operations()
      .filter(({ op }) => Array.isArray(op.security) && op.security.length === 0)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(open).toEqual([
      'GET /healthz',
      'GET /readyz',
      'POST /api/v1/auth/login',
      'POST /api/v1/gateways/{gateway}/ipn',
    ]);
    expect(operations().filter(({ op }) => op.security === undefined)).toEqual([]);
  });

  it('app operations need the key AND the secret (one requirement holding both), or an admin session acting on the app', () => {
    const app = operations().filter(
      ({ path }) => !path.startsWith('/api/v1/admin') && !path.startsWith('/api/v1/auth'),
    );
    const appSecured = app.filter(({ op }) => JSON.stringify(op.security).includes('appKey'));
    expect(appSecured.length).toBeGreaterThan(30);
    for (const { op } of appSecured) {
      expect(op.security).toEqual([{ appKey: [], appSecret: [] }, { adminBearer: [] }]);
      // The admin's way names the app and the mode (decisions section 15).
      const headers = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'header');
      expect(headers.map((p) => p.name)).toEqual(expect.arrayContaining(['X-App-Id', 'X-Mode']));
      expect(Object.keys(op.responses as Json)).toEqual(expect.arrayContaining(['400', '404']));
    }
  });

  it('every error response shows a failure envelope whose code belongs to its status', () => {
    let seen = 0;
    for (const { op, method, path } of operations()) {
      for (const [status, res] of Object.entries(op.responses as Json)) {
        if (Number(status) < 400) continue;
        const example = (res as Json).content?.['application/json']?.example as Json | undefined;
        expect({ at: `${method} ${path} ${status}`, has: example !== undefined }).toEqual({
          at: `${method} ${path} ${status}`,
          has: true,
        });
        expect(example!.meta.success).toBe(false);
        expect(example!.data).toBeNull();
        expect(httpStatusOf(example!.meta.errorCode as ErrorCode)).toBe(Number(status));
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(100);
  });

  it('every operation with a body, and every write without one, documents 413 and 415', () => {
    const writes = operations().filter(
      ({ op, method }) => op.requestBody || ['post', 'put', 'patch', 'delete'].includes(method),
    );
    expect(writes.length).toBeGreaterThanOrEqual(50);
    for (const { op } of writes) {
      expect(Object.keys(op.responses as Json)).toEqual(expect.arrayContaining(['413', '415']));
    }
  });

  it('a body-less write sent a form body answers 415, as documented', async () => {
    const res = await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('a=1');
    expect(res.status).toBe(415);
    expect(res.body.meta.errorCode).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('operations have readable, unique ids and a tag listed at the top with a description', () => {
    const ids = operations().map(({ op }) => op.operationId as string);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['createInvoice', 'createRefund', 'approveRefund']));
    const tags = (doc.tags as Json[]).map((tag) => tag.name as string);
    for (const tag of doc.tags as Json[]) expect(tag.description).toEqual(expect.any(String));
    for (const { op } of operations()) {
      expect(op.tags).toHaveLength(1);
      expect(tags).toContain(op.tags[0]);
    }
  });

  it('every admin operation names the permission it needs; app operations name what an acting admin needs', () => {
    for (const { op, path, method } of operations()) {
      const security = JSON.stringify(op.security ?? []);
      if (!security.includes('adminBearer')) {
        expect(op['x-permissions']).toBeUndefined();
        continue;
      }
      expect({ at: `${method} ${path}`, perms: Array.isArray(op['x-permissions']) }).toEqual({
        at: `${method} ${path}`,
        perms: true,
      });
      for (const p of op['x-permissions'] as string[]) expect(op.description).toContain(`\`${p}\``);
    }
    const at = (m: string, p: string) => doc.paths[p][m]['x-permissions'];
    expect(at('post', '/api/v1/admin/refunds/{id}/approve')).toEqual(['refunds:approve']);
    expect(at('get', '/api/v1/invoices')).toEqual(['invoices:read']);
    expect(at('post', '/api/v1/invoices')).toEqual(['invoices:write']);
    expect(at('post', '/api/v1/products')).toEqual(['catalog:write']);
  });

  it('errors that say the same thing everywhere are shared components; the types stay small', () => {
    const responses = doc.components.responses as Json;
    expect(Object.keys(responses)).toEqual(
      expect.arrayContaining([
        'BadRequest',
        'Unauthorized',
        'Forbidden',
        'NotFound',
        'RateLimited',
      ]),
    );
    let shared = 0;
    let inline = 0;
    for (const { raw } of operations())
      for (const [status, res] of Object.entries(raw.responses as Json))
        if (Number(status) >= 400) {
          if ((res as Json).$ref) shared++;
          else inline++;
        }
    expect(shared).toBeGreaterThan(inline * 5);
  });

  it('a body whose every member is optional is not required, and may be left out', async () => {
    const optional = operations()
      .filter(({ op }) => op.requestBody?.required === false)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(optional).toEqual([
      'PATCH /api/v1/admin/apps/{id}',
      'PATCH /api/v1/admin/apps/{id}/settings',
      'PATCH /api/v1/admin/users/{id}',
      'PATCH /api/v1/benefits/{id}',
      'PATCH /api/v1/products/{id}',
      'PATCH /api/v1/webhook-endpoints/{id}',
      'POST /api/v1/admin/refunds/{id}/complete',
      'POST /api/v1/payments/{id}/refunds',
      'POST /api/v1/subscriptions/{id}/cancel',
      'PUT /api/v1/invoices/template',
    ]);
    const app = await createApp(t);
    const res = await t
      .http()
      .patch(`/api/v1/admin/apps/${app.id}/settings`)
      .set(bearer(await superAdminToken(t)));
    expect(res.status).toBe(200);
  });

  it('states the rules the service enforces: BDT only, dates, the phone forms, URLs, gateway names, the offset cap', () => {
    const schemas = doc.components.schemas as Json;
    expect(schemas.CreateInvoiceDto.properties.currency.enum).toEqual(['BDT']);
    const phone = new RegExp(schemas.CreateInvoiceDto.properties.customerPhone.pattern as string);
    for (const ok of ['01711111111', '8801711111111', '+8801711111111', '+14155550100'])
      expect(phone.test(ok)).toBe(true);
    for (const bad of ['1711111111', '+88021234567', '12345']) expect(phone.test(bad)).toBe(false);
    expect(schemas.CreatePaymentDto.properties.successUrl.format).toBe('uri');
    expect(schemas.CreatePaymentDto.properties.gateway.enum).toEqual([
      'sandbox',
      'sslcommerz',
      'bkash',
      'nagad',
    ]);
    const param = (m: string, p: string, name: string) =>
      (doc.paths[p][m].parameters as Json[]).find((x) => x.name === name)!.schema as Json;
    expect(param('post', '/api/v1/admin/reconciliation/runs', 'period')).toMatchObject({
      format: 'date',
      pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    });
    expect(param('get', '/api/v1/admin/payments', 'gateway').enum).toEqual([
      'sandbox',
      'sslcommerz',
      'bkash',
      'nagad',
    ]);
    expect(
      (doc.paths['/api/v1/invoices'].get.parameters as Json[]).find((x) => x.name === 'page')!
        .description,
    ).toContain('page * size may not pass 10000');
  });

  it('documents X-Request-Id on every response, Retry-After on 429 and 503, Idempotent-Replayed where a key replays', () => {
    let idempotent = 0;
    for (const { op } of operations()) {
      const takesKey = ((op.parameters ?? []) as Json[]).some((p) => p.name === 'Idempotency-Key');
      if (takesKey) idempotent++;
      for (const [status, res] of Object.entries(op.responses as Record<string, Json>)) {
        const headers = Object.keys(res.headers ?? {});
        expect(headers).toContain('X-Request-Id');
        if (status === '429' || status === '503') expect(headers).toContain('Retry-After');
        const replayed =
          takesKey && (Number(status) < 300 || ['404', '409', '422'].includes(status));
        expect(headers.includes('Idempotent-Replayed')).toBe(replayed);
      }
    }
    expect(idempotent).toBeGreaterThanOrEqual(8);
  });

  it('types path ids as positive integers JavaScript holds exactly; Idempotency-Key as 1..255 characters', () => {
    let ids = 0;
    for (const { op } of operations()) {
      for (const p of (op.parameters ?? []) as Json[]) {
        if (p.in === 'path' && p.schema?.type !== 'string') {
          expect(p.schema).toEqual({
            type: 'integer',
            format: 'int64',
            minimum: 1,
            maximum: Number.MAX_SAFE_INTEGER,
          });
          ids++;
        }
        if (p.name === 'Idempotency-Key')
          expect(p.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
      }
    }
    expect(ids).toBeGreaterThanOrEqual(40);
  });

  it('request bodies refuse undeclared members (additionalProperties: false), nested objects too', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    expect(schemas.CreatePaymentDto.additionalProperties).toBe(false);
    expect(schemas.CreateInvoiceDto.additionalProperties).toBe(false);
    const lineRef = schemas.CreateInvoiceDto.properties.lineItems.items.$ref as string;
    expect(schemas[lineRef.split('/').pop()!].additionalProperties).toBe(false);
    // Responses stay open to additions (clients must ignore unknown members).
    expect(schemas.PaymentDto.additionalProperties).toBeUndefined();
  });

  it('documents 503 wherever the database is read, 429 on the public gateway callbacks', () => {
    for (const { path, op } of operations()) {
      const statuses = Object.keys(op.responses as Json);
      if (path !== '/healthz') expect(statuses).toContain('503');
      if (path.startsWith('/api/v1/gateways/')) expect(statuses).toContain('429');
    }
  });

  it('documents a price request as ONE_TIME or RECURRING (the billing period required there)', () => {
    const body = doc.paths['/api/v1/products/{id}/prices'].post.requestBody.content[
      'application/json'
    ].schema as Json;
    expect(body.oneOf).toEqual([
      { $ref: '#/components/schemas/OneTimePriceRequest' },
      { $ref: '#/components/schemas/RecurringPriceRequest' },
    ]);
    expect(body.discriminator.propertyName).toBe('type');
    const schemas = doc.components.schemas as Record<string, Json>;
    expect(schemas.RecurringPriceRequest.required).toEqual(
      expect.arrayContaining(['type', 'amountMinor', 'interval', 'intervalCount']),
    );
    expect(Object.keys(schemas.OneTimePriceRequest.properties).sort()).toEqual([
      'amountMinor',
      'currency',
      'type',
    ]);
    expect(schemas.OneTimePriceRequest.additionalProperties).toBe(false);
  });

  it('carries the rules the service enforces, from the same validation decorators', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    expect(schemas.CreateBenefitDto.properties.lookupKey).toMatchObject({
      minLength: 1,
      maxLength: 100,
      pattern: '^[A-Za-z0-9._:-]+$',
    });
    expect(schemas.CreateWebhookEndpointDto.properties.events).toMatchObject({ minItems: 1 });
    expect(schemas.CreateAdminUserDto.properties.email).toMatchObject({ format: 'email' });
    expect(schemas.CreateAdminUserDto.properties.name).toMatchObject({ minLength: 1 });
    expect(schemas.CreateInvoiceDto.properties.lineItems).toMatchObject({
      minItems: 1,
      maxItems: 100,
    });
  });

  it('generates TypeScript types (openapi-typescript) that compile and describe the wire', async () => {
    const types = join(dir, 'joma-api.d.ts');
    await run(bin('openapi-typescript'), [file, '--output', types], { cwd: dir });
    writeFileSync(
      join(dir, 'use.ts'),
      [
        "import type { components, paths } from './joma-api';",
        "type Invoice = components['schemas']['InvoiceDto'];",
        "type Created = paths['/api/v1/invoices']['post']['responses']['201']['content']['application/json'];",
        "const total: Invoice['totalMinor'] = 90000;",
        "const status: Invoice['status'] = 'ISSUED';",
        "const interval: components['schemas']['PriceDto']['interval'] = null;",
        "const lastLogin: components['schemas']['AdminUserDto']['lastLoginAt'] = '2026-01-01T00:00:00Z';",
        'const created = {} as Created;',
        'export const used = [total, status, interval, lastLogin, created.data.payableUrl];',
        '',
      ].join('\n'),
    );
    await run(
      bin('tsc'),
      [
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        'false',
        '--target',
        'ES2022',
        '--moduleResolution',
        'node',
        join(dir, 'use.ts'),
      ],
      {
        cwd: dir,
      },
    ).catch((err: { stdout: string }) => {
      throw new Error(`generated types do not compile:\n${err.stdout}`);
    });
  }, 60_000);
});
