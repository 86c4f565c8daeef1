import request from 'supertest';

import { Permission, PERMISSIONS } from '../../src/auth/permissions';
import { SandboxGateway } from '../../src/gateways';
import { WebhookFanout } from '../../src/webhooks/delivery/webhook-fanout';
import {
  adminWith,
  asApp,
  bearer,
  createApp,
  CreatedApp,
  superAdminToken,
} from '../support/factories';
import { captureNoRefund, NO_REFUND, NoRefundGatewayModule } from '../support/no-refund-gateway';
import { createPayment, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';
import { createEndpoint, deliveriesOfEvent, recordEvent } from '../support/webhooks';

interface Route {
  /** Method and path as /docs-json lists them. */
  route: string;
  permission: Permission;
  /** Performs the call with these auth headers; must succeed for anyone holding the permission. */
  call: (auth: Record<string, string>) => Promise<request.Response>;
  success: number;
}

/** Admin routes that need a session but no permission. */
const SESSION_ONLY = ['GET /api/v1/auth/me', 'POST /api/v1/auth/logout'];
/** Routes with rules of their own, tested in login-security.e2e-spec.ts: */
const OWN_RULES = [
  // a session and the current password
  'POST /api/v1/auth/password',
  // super admins only: no permission string grants it
  'POST /api/v1/admin/users/{id}/password',
];

describe('admin permissions, route by route', () => {
  let t: TestApp;
  let root: string;
  let seq = 0;
  const next = () => ++seq;
  const targets = { appId: 0, userId: 0, benefitId: 0, productId: 0, endpointId: 0, deliveryId: 0 };
  const tokens = new Map<string, string>();
  /** An app whose every refund waits for approval (threshold 0). */
  let approvals: CreatedApp;
  let runId = 0;
  /** A reconciliation run to read. */
  async function aRun(): Promise<number> {
    if (!runId) {
      const r = await t
        .http()
        .post(`/api/v1/admin/reconciliation/runs?period=2026-01-01&applicationId=${targets.appId}`)
        .set(bearer(root));
      runId = r.body.data.id;
    }
    return runId;
  }
  /** A fresh refund awaiting approval (each approve or reject consumes one). */
  async function awaitingRefund(): Promise<number> {
    const p = await createPayment(t, approvals.TEST, { amountMinor: 5000 });
    await settle(t, approvals.TEST, p.id);
    const r = await t
      .http()
      .post(`/api/v1/payments/${p.id}/refunds`)
      .set(asApp(approvals.TEST))
      .send({});
    return r.body.data.id;
  }

  /** A refund PENDING at the gateway (approved while the sandbox holds refunds), free to check. */
  async function refundAtGateway(): Promise<number> {
    const id = await awaitingRefund();
    const sandbox = t.app.get(SandboxGateway);
    sandbox.holdRefunds(true);
    try {
      await t.http().post(`/api/v1/admin/refunds/${id}/approve`).set(bearer(root));
    } finally {
      sandbox.holdRefunds(false);
    }
    return id;
  }

  /** A fresh manual refund (its gateway has no refund call), PENDING for an operator to complete. */
  async function manualRefund(): Promise<number> {
    const p = await createPayment(t, approvals.TEST, { amountMinor: 5000, gateway: NO_REFUND });
    await captureNoRefund(t.app, t.db, p.id);
    const r = await t
      .http()
      .post(`/api/v1/payments/${p.id}/refunds`)
      .set(asApp(approvals.TEST))
      .send({});
    await t.http().post(`/api/v1/admin/refunds/${r.body.data.id}/approve`).set(bearer(root));
    return r.body.data.id;
  }

  const ROUTES: Route[] = [
    {
      route: 'POST /api/v1/admin/apps',
      permission: 'apps:write',
      success: 201,
      call: (auth) =>
        t
          .http()
          .post('/api/v1/admin/apps')
          .set(auth)
          .send({ name: `P${next()}` }),
    },
    {
      route: 'GET /api/v1/admin/apps',
      permission: 'apps:read',
      success: 200,
      call: (auth) => t.http().get('/api/v1/admin/apps').set(auth),
    },
    {
      route: 'GET /api/v1/admin/apps/{id}',
      permission: 'apps:read',
      success: 200,
      call: (auth) => t.http().get(`/api/v1/admin/apps/${targets.appId}`).set(auth),
    },
    {
      route: 'PATCH /api/v1/admin/apps/{id}',
      permission: 'apps:write',
      success: 200,
      call: (auth) =>
        t
          .http()
          .patch(`/api/v1/admin/apps/${targets.appId}`)
          .set(auth)
          .send({ name: `Renamed ${next()}` }),
    },
    {
      route: 'PATCH /api/v1/admin/apps/{id}/settings',
      permission: 'apps:write',
      success: 200,
      call: (auth) =>
        t
          .http()
          .patch(`/api/v1/admin/apps/${targets.appId}/settings`)
          .set(auth)
          .send({ paymentExpiryMinutes: 30 + (next() % 60) }),
    },
    {
      route: 'POST /api/v1/admin/apps/{id}/credentials/{mode}/rotate',
      permission: 'apps:write',
      success: 201,
      call: (auth) =>
        t.http().post(`/api/v1/admin/apps/${targets.appId}/credentials/LIVE/rotate`).set(auth),
    },
    {
      route: 'GET /api/v1/admin/users',
      permission: 'users:read',
      success: 200,
      call: (auth) => t.http().get('/api/v1/admin/users').set(auth),
    },
    {
      route: 'POST /api/v1/admin/users',
      permission: 'users:write',
      success: 201,
      call: (auth) =>
        t
          .http()
          .post('/api/v1/admin/users')
          .set(auth)
          .send({
            email: `made${next()}@perm.joma.test`,
            name: 'Made',
            password: 'made-password-123',
          }),
    },
    {
      route: 'GET /api/v1/admin/users/{id}',
      permission: 'users:read',
      success: 200,
      call: (auth) => t.http().get(`/api/v1/admin/users/${targets.userId}`).set(auth),
    },
    {
      route: 'PATCH /api/v1/admin/users/{id}',
      permission: 'users:write',
      success: 200,
      call: (auth) =>
        t
          .http()
          .patch(`/api/v1/admin/users/${targets.userId}`)
          .set(auth)
          .send({ name: `Target ${next()}` }),
    },
    {
      route: 'POST /api/v1/admin/benefits',
      permission: 'catalog:write',
      success: 201,
      call: (auth) =>
        t
          .http()
          .post(`/api/v1/admin/benefits?applicationId=${targets.appId}&mode=TEST`)
          .set(auth)
          .send({ lookupKey: `b${next()}`, name: 'B' }),
    },
    {
      route: 'POST /api/v1/admin/benefits/{id}/activate',
      permission: 'catalog:write',
      success: 200,
      call: (auth) =>
        t.http().post(`/api/v1/admin/benefits/${targets.benefitId}/activate`).set(auth),
    },
    {
      route: 'POST /api/v1/admin/products',
      permission: 'catalog:write',
      success: 201,
      call: (auth) =>
        t
          .http()
          .post(`/api/v1/admin/products?applicationId=${targets.appId}&mode=TEST`)
          .set(auth)
          .send({ name: `Product ${next()}` }),
    },
    {
      route: 'POST /api/v1/admin/products/{id}/archive',
      permission: 'catalog:write',
      success: 200,
      call: (auth) =>
        t.http().post(`/api/v1/admin/products/${targets.productId}/archive`).set(auth),
    },
    {
      route: 'POST /api/v1/admin/products/{id}/benefits',
      permission: 'catalog:write',
      success: 200,
      call: (auth) =>
        t
          .http()
          .post(`/api/v1/admin/products/${targets.productId}/benefits`)
          .set(auth)
          .send({ benefitId: targets.benefitId }),
    },
    {
      route: 'GET /api/v1/admin/webhook-deliveries',
      permission: 'webhooks:operate',
      success: 200,
      call: (auth) =>
        t.http().get(`/api/v1/admin/webhook-deliveries?applicationId=${targets.appId}`).set(auth),
    },
    {
      route: 'GET /api/v1/admin/webhook-deliveries/{id}',
      permission: 'webhooks:operate',
      success: 200,
      call: (auth) =>
        t.http().get(`/api/v1/admin/webhook-deliveries/${targets.deliveryId}`).set(auth),
    },
    {
      route: 'POST /api/v1/admin/webhook-deliveries/{id}/resend',
      permission: 'webhooks:operate',
      success: 200,
      call: (auth) =>
        t.http().post(`/api/v1/admin/webhook-deliveries/${targets.deliveryId}/resend`).set(auth),
    },
    {
      route: 'GET /api/v1/admin/webhook-endpoints',
      permission: 'webhooks:operate',
      success: 200,
      call: (auth) => t.http().get('/api/v1/admin/webhook-endpoints').set(auth),
    },
    {
      route: 'POST /api/v1/admin/webhook-endpoints/{id}/resend-parked',
      permission: 'webhooks:operate',
      success: 200,
      call: (auth) =>
        t
          .http()
          .post(`/api/v1/admin/webhook-endpoints/${targets.endpointId}/resend-parked`)
          .set(auth),
    },
    {
      route: 'GET /api/v1/admin/invoices',
      permission: 'invoices:read',
      success: 200,
      call: (auth) =>
        t.http().get(`/api/v1/admin/invoices?applicationId=${targets.appId}`).set(auth),
    },
    {
      route: 'GET /api/v1/admin/audit-events',
      permission: 'audit:read',
      success: 200,
      call: (auth) => t.http().get('/api/v1/admin/audit-events').set(auth),
    },
    {
      route: 'GET /api/v1/admin/payments',
      permission: 'invoices:read',
      success: 200,
      call: (auth) =>
        t.http().get(`/api/v1/admin/payments?excess=true&applicationId=${targets.appId}`).set(auth),
    },
    {
      route: 'GET /api/v1/admin/subscriptions',
      permission: 'invoices:read',
      success: 200,
      call: (auth) =>
        t.http().get(`/api/v1/admin/subscriptions?applicationId=${targets.appId}`).set(auth),
    },
    {
      route: 'GET /api/v1/admin/refunds',
      permission: 'invoices:read',
      success: 200,
      call: (auth) => t.http().get('/api/v1/admin/refunds?status=PENDING').set(auth),
    },
    {
      route: 'GET /api/v1/admin/ledger/balances',
      permission: 'invoices:read',
      success: 200,
      call: (auth) =>
        t.http().get(`/api/v1/admin/ledger/balances?applicationId=${targets.appId}`).set(auth),
    },
    {
      route: 'PATCH /api/v1/admin/apps/{id}/gateways/{gateway}',
      permission: 'apps:write',
      success: 200,
      call: (auth) =>
        t
          .http()
          .patch(`/api/v1/admin/apps/${targets.appId}/gateways/sslcommerz?mode=TEST`)
          .set(auth)
          .send({ credentials: { storeId: 'store', storePassword: 'secret' } }),
    },
    {
      route: 'PATCH /api/v1/admin/apps/{id}/sms/sslwireless',
      permission: 'apps:write',
      success: 200,
      call: (auth) =>
        t
          .http()
          .patch(`/api/v1/admin/apps/${targets.appId}/sms/sslwireless?mode=LIVE`)
          .set(auth)
          .send({ apiToken: 'token', sid: 'SENDER' }),
    },
    {
      route: 'GET /api/v1/admin/apps/{id}/gateways',
      permission: 'apps:read',
      success: 200,
      call: (auth) => t.http().get(`/api/v1/admin/apps/${targets.appId}/gateways`).set(auth),
    },
    {
      route: 'DELETE /api/v1/admin/apps/{id}/gateways/{gateway}',
      permission: 'apps:write',
      success: 200,
      call: async (auth) => {
        await t
          .http()
          .patch(`/api/v1/admin/apps/${targets.appId}/gateways/bkash?mode=LIVE`)
          .set(bearer(root))
          .send({ credentials: { appKey: 'k', appSecret: 's', username: 'u', password: 'p' } });
        return t
          .http()
          .delete(`/api/v1/admin/apps/${targets.appId}/gateways/bkash?mode=LIVE`)
          .set(auth);
      },
    },
    {
      route: 'POST /api/v1/admin/settlements/import',
      permission: 'reconciliation:run',
      success: 201,
      call: (auth) =>
        t
          .http()
          .post(`/api/v1/admin/settlements/import?applicationId=${targets.appId}&mode=TEST`)
          .set(auth)
          .send({
            gateway: 'sandbox',
            csv: `gateway_txn_id,amount_minor,currency,transaction_time\nP-${next()},100,BDT,2026-01-01T00:00:00Z`,
          }),
    },
    {
      route: 'POST /api/v1/admin/reconciliation/runs',
      permission: 'reconciliation:run',
      success: 201,
      call: (auth) =>
        t
          .http()
          .post(
            `/api/v1/admin/reconciliation/runs?period=2026-01-01&applicationId=${targets.appId}`,
          )
          .set(auth),
    },
    {
      route: 'GET /api/v1/admin/reconciliation/runs',
      permission: 'reconciliation:run',
      success: 200,
      call: (auth) => t.http().get('/api/v1/admin/reconciliation/runs').set(auth),
    },
    {
      route: 'GET /api/v1/admin/reconciliation/runs/{id}',
      permission: 'reconciliation:run',
      success: 200,
      call: async (auth) =>
        t
          .http()
          .get(`/api/v1/admin/reconciliation/runs/${await aRun()}`)
          .set(auth),
    },
    {
      route: 'GET /api/v1/admin/reconciliation/runs/{id}/items',
      permission: 'reconciliation:run',
      success: 200,
      call: async (auth) =>
        t
          .http()
          .get(`/api/v1/admin/reconciliation/runs/${await aRun()}/items`)
          .set(auth),
    },
    {
      route: 'POST /api/v1/admin/refunds/{id}/approve',
      permission: 'refunds:approve',
      success: 200,
      call: async (auth) =>
        t
          .http()
          .post(`/api/v1/admin/refunds/${await awaitingRefund()}/approve`)
          .set(auth),
    },
    {
      route: 'POST /api/v1/admin/refunds/{id}/complete',
      permission: 'refunds:approve',
      success: 200,
      call: async (auth) =>
        t
          .http()
          .post(`/api/v1/admin/refunds/${await manualRefund()}/complete`)
          .set(auth),
    },
    {
      route: 'POST /api/v1/admin/refunds/{id}/check',
      permission: 'refunds:approve',
      success: 200,
      call: async (auth) =>
        t
          .http()
          .post(`/api/v1/admin/refunds/${await refundAtGateway()}/check`)
          .set(auth),
    },
    {
      route: 'POST /api/v1/admin/refunds/{id}/reject',
      permission: 'refunds:approve',
      success: 200,
      call: async (auth) =>
        t
          .http()
          .post(`/api/v1/admin/refunds/${await awaitingRefund()}/reject`)
          .set(auth),
    },
  ];

  /** An admin holding exactly `perms` (cached per set). */
  async function tokenFor(perms: Permission[]): Promise<string> {
    const k = [...perms].sort().join(',');
    if (!tokens.has(k)) tokens.set(k, (await adminWith(t, perms)).token);
    return tokens.get(k)!;
  }

  beforeAll(async () => {
    // With a gateway that has no refund call (Nagad's stand-in), for manual refunds.
    t = await createTestApp({ imports: [NoRefundGatewayModule] });
    root = await superAdminToken(t);
    const app = await createApp(t);
    targets.appId = app.id;
    targets.endpointId = (await createEndpoint(t, app.TEST, { url: 'http://127.0.0.1:9/hook' })).id;
    const eventId = await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'invoice.issued', {
      invoice_id: 1,
    });
    await t.app.get(WebhookFanout).fanOutBatch();
    targets.deliveryId = (await deliveriesOfEvent(t, eventId))[0].id;
    targets.userId = (await adminWith(t, [])).id;
    const b = await t
      .http()
      .post(`/api/v1/admin/benefits?applicationId=${targets.appId}&mode=TEST`)
      .set(bearer(root))
      .send({ lookupKey: 'target', name: 'Target' });
    targets.benefitId = b.body.data.id;
    const p = await t
      .http()
      .post(`/api/v1/admin/products?applicationId=${targets.appId}&mode=TEST`)
      .set(bearer(root))
      .send({ name: 'Target product' });
    targets.productId = p.body.data.id;
    approvals = await createApp(t);
    await t
      .http()
      .patch(`/api/v1/admin/apps/${approvals.id}/settings`)
      .set(bearer(root))
      .send({ refundApprovalThresholdMinor: 0 });
  });
  afterAll(() => t.close());

  it('the table covers every admin route in the API (a new route must be added here)', async () => {
    const doc = (await t.http().get('/docs-json')).body as {
      paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
    };
    const adminRoutes: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      // App routes take an admin token too, acting on an app (section 15): app-scope.e2e-spec.ts.
      if (!/^\/api\/v1\/(admin|auth)\//.test(path)) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (op.security?.some((s) => 'adminBearer' in s))
          adminRoutes.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(adminRoutes.sort()).toEqual(
      [...ROUTES.map((r) => r.route), ...SESSION_ONLY, ...OWN_RULES].sort(),
    );
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/api/v1/admin/'))
        .every((p) =>
          Object.values(doc.paths[p]).every((op) => op.security?.some((s) => 'adminBearer' in s)),
        ),
    ).toBe(true);
  });

  describe.each(ROUTES.map((r) => [r.route, r] as const))('%s', (_name, r) => {
    it(`without ${r.permission}: 403 PERMISSION_DENIED, even holding every other permission`, async () => {
      for (const perms of [[], PERMISSIONS.filter((p) => p !== r.permission)]) {
        const res = await r.call(bearer(await tokenFor(perms)));
        expect(res.status).toBe(403);
        expect(res.body.meta.errorCode).toBe('PERMISSION_DENIED');
        expect(res.body.meta.message).toContain(r.permission);
      }
    });

    it(`with only ${r.permission}: gets through`, async () => {
      const res = await r.call(bearer(await tokenFor([r.permission])));
      expect(res.status).toBe(r.success);
      expect(res.body.meta.success).toBe(true);
    });

    it('a super admin with no permission strings: gets through', async () => {
      const res = await r.call(bearer(root));
      expect(res.status).toBe(r.success);
    });

    it('no token: 401 AUTHENTICATION_REQUIRED', async () => {
      const res = await r.call({});
      expect(res.status).toBe(401);
      expect(res.body.meta.errorCode).toBe('AUTHENTICATION_REQUIRED');
    });
  });

  describe('a user scoped to another app, holding every permission', () => {
    let scoped: { id: number; token: string };
    let own: CreatedApp;
    beforeAll(async () => {
      own = await createApp(t);
      scoped = await adminWith(t, [...PERMISSIONS], { appIds: [own.id] });
    });
    const changesBy = async (userId: number) =>
      (
        await t.db.query('SELECT count(*)::int AS n FROM audit_events WHERE actor_user_id = $1', [
          userId,
        ])
      ).rows[0].n as number;

    it.each(ROUTES.map((r) => [r.route, r] as const))(
      '%s: nothing of this app is read or changed',
      async (_name, r) => {
        const before = await changesBy(scoped.id);
        const res = await r.call(bearer(scoped.token));
        if (res.status === 200) {
          // A list filtered to the user's apps: only its own app, which holds nothing yet.
          expect(r.route.startsWith('GET ')).toBe(true);
          const rows = res.body.data as { id: number }[];
          expect(rows.map((row) => row.id)).toEqual(
            r.route === 'GET /api/v1/admin/apps' ? [own.id] : [],
          );
        } else {
          expect([403, 404]).toContain(res.status);
          expect(res.body.meta.errorCode).toBe(
            res.status === 403 ? 'PERMISSION_DENIED' : 'RESOURCE_NOT_FOUND',
          );
        }
        // Nothing was changed on its behalf.
        expect(await changesBy(scoped.id)).toBe(before);
      },
    );
  });

  it.each(SESSION_ONLY)('%s needs a session but no permission', async (route) => {
    const token = (await adminWith(t, [])).token;
    const [method, path] = route.split(' ');
    const res =
      method === 'GET'
        ? await t.http().get(path).set(bearer(token))
        : await t.http().post(path).set(bearer(token));
    expect(res.status).toBe(200);
  });
});
