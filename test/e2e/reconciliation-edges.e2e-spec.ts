import { bearer, createApp, CreatedApp, login } from '../support/factories';
import { expectBalancedLedger } from '../support/ledger';
import { createTestApp, SUPER_ADMIN, TestApp } from '../support/test-app';

/** 10:00 in Dhaka on 12 March 2027 (the test clock only moves forward). */
const MORNING = Date.parse('2027-03-12T04:00:00Z');
const MAX_LINE = 100_000_000_000;

/**
 * Issue 43: reconciliation queries that are 400/404 instead of 500, cursors
 * over HTTP, and the audit log holding settlement imports, reconciliation
 * runs and gateway credential changes in the transaction that makes them.
 * The bounds of import lines, the imports refused whole and the classes of a
 * fetched report are proven on the services in
 * test/medium/reconciliation.medium-spec.ts.
 */
describe('settlement and reconciliation edges', () => {
  let t: TestApp;
  let app: CreatedApp;
  let root: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    t.clock.advance(MORNING - t.clock.nowMs());
    app = await createApp(t);
    root = bearer(await login(t, SUPER_ADMIN.email, SUPER_ADMIN.password));
  });
  afterEach(() => expectBalancedLedger(t.db));
  afterAll(() => t.close());

  const http = () => t.http();
  const importCsv = (csv: string, a = app) =>
    http()
      .post(`/api/v1/admin/settlements/import?applicationId=${a.id}&mode=TEST`)
      .set(root)
      .send({ gateway: 'sandbox', csv });
  const header = 'gateway_txn_id,amount_minor,currency,transaction_time,fee_minor';
  const lines = (prefix: string, n: number, amount: number | string, fee = '') =>
    Array.from({ length: n }, (_, i) => `${prefix}-${i},${amount},BDT,2027-03-11T05:00:00Z,${fee}`);
  const audits = async (action: string) =>
    (
      await t.db.query(
        'SELECT actor_email, target_id, after FROM audit_events WHERE action = $1 ORDER BY id',
        [action],
      )
    ).rows as { actor_email: string | null; target_id: string; after: Record<string, unknown> }[];

  const stored = async (a: CreatedApp) =>
    (
      await t.db.query(
        `SELECT (SELECT count(*) FROM settlement_imports WHERE app_id = $1)::int AS imports,
                (SELECT count(*) FROM settlement_lines WHERE app_id = $1)::int AS lines`,
        [a.id],
      )
    ).rows[0] as { imports: number; lines: number };

  it('issue 56: a header row naming a column twice is 400 VALIDATION_FAILED naming the field csv', async () => {
    const a = await createApp(t);
    const res = await importCsv(
      [
        'gateway_txn_id,amount_minor,currency,transaction_time,amount_minor',
        'DUP-1,5000,BDT,2027-03-11T05:00:00Z,900000',
      ].join('\n'),
      a,
    );
    expect(res.status).toBe(400);
    expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(res.body.meta.details).toEqual([
      { field: 'csv', message: expect.stringContaining('names amount_minor more than once') },
    ]);
    expect(await stored(a)).toEqual({ imports: 0, lines: 0 });
  });

  it('issue 56: a LIVE import of sandbox lines is 400 VALIDATION_FAILED naming the field gateway and the lines', async () => {
    const a = await createApp(t);
    const csv = [header, ...lines('SBX-LIVE', 2, 5000), 'BAD,-1,BDT,2027-03-11T05:00:00Z,'].join(
      '\n',
    );
    const refused = await http()
      .post(`/api/v1/admin/settlements/import?applicationId=${a.id}&mode=LIVE`)
      .set(root)
      .send({ gateway: 'sandbox', csv });
    expect(refused.status).toBe(400);
    expect(refused.body.meta.errorCode).toBe('VALIDATION_FAILED');
    expect(refused.body.meta.details).toEqual([
      {
        field: 'gateway',
        message: expect.stringContaining('cannot enter a LIVE import (lines 2, 3, 4)'),
      },
    ]);
    expect(await stored(a)).toEqual({ imports: 0, lines: 0 });
  });

  it('a period that is not a calendar day is 400; an unknown applicationId is 404; never a 500', async () => {
    for (const period of ['2024-13-45', '2025-02-29', '2024-00-10', 'yesterday']) {
      const res = await http()
        .post(`/api/v1/admin/reconciliation/runs?period=${period}`)
        .set(root)
        .send();
      expect([period, res.status, res.body.meta.errorCode]).toEqual([
        period,
        400,
        'VALIDATION_FAILED',
      ]);
      const listed = await http()
        .get(`/api/v1/admin/reconciliation/runs?period=${period}`)
        .set(root);
      expect([period, listed.status]).toEqual([period, 400]);
    }
    const unknown = await http()
      .post('/api/v1/admin/reconciliation/runs?period=2027-03-11&applicationId=987654321')
      .set(root)
      .send();
    expect(unknown.status).toBe(404);
    expect(unknown.body.meta.errorCode).toBe('RESOURCE_NOT_FOUND');
  });

  it('both reconciliation lists page by cursor, in the same order as by page', async () => {
    const a = await createApp(t);
    await importCsv(
      [header, ...lines('CUR', 5, 4000), `BIGGER-1,${MAX_LINE},BDT,2027-03-11T05:00:00Z,`].join(
        '\n',
      ),
      a,
    );
    for (let i = 0; i < 5; i++)
      expect(
        (
          await http()
            .post(
              `/api/v1/admin/reconciliation/runs?period=2027-03-11&applicationId=${a.id}&mode=TEST`,
            )
            .set(root)
            .send()
        ).status,
      ).toBe(201);
    const walk = async (path: string) => {
      const seen: number[] = [];
      let cursor: string | undefined;
      do {
        const res = await http()
          .get(`${path}${path.includes('?') ? '&' : '?'}size=2${cursor ? `&cursor=${cursor}` : ''}`)
          .set(root);
        expect(res.status).toBe(200);
        seen.push(
          ...res.body.data.map(
            (r: { id?: number; gatewayTxnId?: string }) => r.id ?? r.gatewayTxnId,
          ),
        );
        cursor = res.body.pagination.nextCursor;
      } while (cursor);
      return seen;
    };
    const all = await http()
      .get('/api/v1/admin/reconciliation/runs?size=100&period=2027-03-11')
      .set(root);
    expect(await walk('/api/v1/admin/reconciliation/runs?period=2027-03-11')).toEqual(
      all.body.data.map((r: { id: number }) => r.id),
    );
    const runId = all.body.data[0].id as number;
    const items = await http()
      .get(`/api/v1/admin/reconciliation/runs/${runId}/items?size=100`)
      .set(root);
    expect(items.body.data.length).toBeGreaterThanOrEqual(6);
    expect(await walk(`/api/v1/admin/reconciliation/runs/${runId}/items`)).toEqual(
      items.body.data.map((r: { gatewayTxnId: string }) => r.gatewayTxnId),
    );
    const tampered = Buffer.from('9.1').toString('base64url');
    expect(
      (
        await http()
          .get(`/api/v1/admin/reconciliation/runs/${runId}/items?cursor=${tampered}`)
          .set(root)
      ).status,
    ).toBe(400);
  });

  it('settlement imports and reconciliation runs are audited with the admin as actor', async () => {
    const imported = await importCsv([header, ...lines('AUD', 2, 5000)].join('\n'));
    expect(imported.status).toBe(201);
    const run = await http()
      .post(`/api/v1/admin/reconciliation/runs?period=2027-03-11&applicationId=${app.id}`)
      .set(root)
      .send();
    expect(run.status).toBe(201);
    const [imp] = (await audits('settlement.imported')).filter(
      (e) => e.target_id === String(imported.body.data.importId),
    );
    expect(imp).toEqual({
      actor_email: SUPER_ADMIN.email,
      target_id: String(imported.body.data.importId),
      after: {
        applicationId: app.id,
        mode: 'TEST',
        gateway: 'sandbox',
        lines: 2,
        imported: 2,
        duplicates: 0,
        rejected: 0,
      },
    });
    const [ran] = (await audits('reconciliation.run')).filter(
      (e) => e.target_id === String(run.body.data.id),
    );
    expect(ran).toMatchObject({
      actor_email: SUPER_ADMIN.email,
      after: { applicationId: app.id, period: '2027-03-11', ledgerBalanced: true },
    });
  });

  it('a gateway credential change and its audit entry commit together (or neither does)', async () => {
    const a = await createApp(t);
    await t.db.query(`
      CREATE FUNCTION joma_test_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit refused'; END $$`);
    await t.db.query(`
      CREATE TRIGGER refuse_credential_audit BEFORE INSERT ON audit_events FOR EACH ROW
        WHEN (NEW.action = 'app.gateway_credentials_set') EXECUTE FUNCTION joma_test_refuse_audit()`);
    const set = () =>
      http()
        .patch(`/api/v1/admin/apps/${a.id}/gateways/sslcommerz?mode=TEST`)
        .set(root)
        .send({ credentials: { storeId: 'store', storePassword: 'store-secret' } });
    try {
      expect((await set()).status).toBe(500);
    } finally {
      await t.db.query('DROP TRIGGER refuse_credential_audit ON audit_events');
    }
    const stored = await t.db.query(
      'SELECT count(*)::int AS n FROM gateway_credentials WHERE app_id = $1',
      [a.id],
    );
    expect(stored.rows[0].n).toBe(0);
    expect((await set()).status).toBe(200);
    const [entry] = (await audits('app.gateway_credentials_set')).filter(
      (e) => e.target_id === String(a.id),
    );
    expect(entry.after).toEqual({
      mode: 'TEST',
      gateway: 'sslcommerz',
      fields: ['storeId', 'storePassword'],
      default: false,
    });
    expect(JSON.stringify(entry)).not.toContain('store-secret');
  });
});
