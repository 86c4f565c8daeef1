import { generateKeyPairSync } from 'node:crypto';

import { captureLogs } from '../support/capture-logs';
import { bearer, createApp, superAdminToken } from '../support/factories';
import { setGateway } from '../support/gateways';
import { bare } from '../support/nagad-test-keys';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * An app's Nagad credentials (decisions 22): the merchant id and number,
 * the merchant's RSA private key and Nagad's RSA public key, as bare base64
 * or PEM. Keys that do not parse as RSA keys are 400 VALIDATION_FAILED
 * naming the field, never echoing the value; good ones are sealed and never
 * returned or logged.
 */
describe('PATCH /admin/apps/{id}/gateways/nagad', () => {
  let t: TestApp;
  let logged: string[] = [];
  const merchant = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const nagad = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const good = {
    merchantId: '683002007104225',
    merchantNumber: '01737335544',
    merchantPrivateKey: bare(merchant.privateKey, 'pkcs8'),
    nagadPublicKey: bare(nagad.publicKey, 'spki'),
  };

  beforeAll(async () => {
    logged = captureLogs();
    t = await createTestApp({ config: { jwtTtlMinutes: 600, logLevel: 'info' } });
  });
  afterAll(async () => {
    await t.close();
    jest.restoreAllMocks();
  });

  /** No part of a secret anywhere: a 40-character slice from inside it would show. */
  const expectNowhere = (text: string, secret: string) =>
    expect(text).not.toContain(secret.slice(60, 100));

  it.each([
    ['merchantPrivateKey', 'not-a-key-9f3a7c1e5b2d8f4a6c0e9b1d3f5a7c2e4b6d8f0a1c3e5b7d9f'],
    // Valid base64 DER, but Nagad's PUBLIC key where the private one goes.
    ['merchantPrivateKey', bare(nagad.publicKey, 'spki')],
    // A private key, but not RSA.
    ['merchantPrivateKey', bare(ec.privateKey, 'pkcs8')],
    ['nagadPublicKey', bare(ec.publicKey, 'spki')],
    ['nagadPublicKey', 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtruncatedtruncatedtruncated'],
    // The merchant's private key where Nagad's public one goes.
    ['nagadPublicKey', bare(merchant.privateKey, 'pkcs8')],
  ])(
    '%s that is not an RSA key of its kind: 400 naming the field, the value nowhere',
    async (field, value) => {
      const app = await createApp(t);
      const before = logged.length;
      const res = await setGateway(t, app.id, 'nagad', 'TEST', { ...good, [field]: value });
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(res.body.meta.details).toEqual([
        { field: `credentials.${field}`, message: expect.stringMatching(/RSA/) },
      ]);
      expectNowhere(JSON.stringify(res.body), value.padEnd(100, ' '));
      expect(JSON.stringify(res.body)).not.toContain(value);
      expect(logged.slice(before).join('\n')).not.toContain(value);
      // Nothing stored.
      const { rows } = await t.db.query(
        `SELECT count(*)::int AS n FROM gateway_credentials WHERE app_id = $1`,
        [app.id],
      );
      expect(rows[0].n).toBe(0);
    },
  );

  it("good keys, bare base64 or PEM: accepted, sealed, never returned or logged; the list shows the merchant id's last 4", async () => {
    const app = await createApp(t);
    const before = logged.length;
    const res = await setGateway(t, app.id, 'nagad', 'TEST', good, true);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      applicationId: app.id,
      mode: 'TEST',
      gateway: 'nagad',
      credentialFields: ['merchantId', 'merchantNumber', 'merchantPrivateKey', 'nagadPublicKey'],
      defaultGateway: 'nagad',
      configuredGateways: ['nagad'],
    });
    const pem = {
      ...good,
      merchantPrivateKey: merchant.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      nagadPublicKey: nagad.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    };
    const live = await setGateway(t, app.id, 'nagad', 'LIVE', pem);
    expect(live.status).toBe(200);
    const listed = await t
      .http()
      .get(`/api/v1/admin/apps/${app.id}/gateways`)
      .set(bearer(await superAdminToken(t)));
    expect(listed.status).toBe(200);
    const rows = (listed.body.data as Record<string, unknown>[]).filter(
      (g) => g.gateway === 'nagad',
    );
    expect(rows).toEqual([
      expect.objectContaining({ mode: 'TEST', configured: true, last4: '4225', default: true }),
      expect.objectContaining({ mode: 'LIVE', configured: true, last4: '4225', default: false }),
    ]);
    const stored = await t.db.query(`SELECT * FROM gateway_credentials WHERE app_id = $1`, [
      app.id,
    ]);
    const audited = await t.db.query(
      `SELECT after FROM audit_events WHERE action = 'app.gateway_credentials_set' AND target_id = $1`,
      [String(app.id)],
    );
    expect(audited.rows).toHaveLength(2);
    const everything = [
      JSON.stringify(res.body),
      JSON.stringify(live.body),
      JSON.stringify(listed.body),
      JSON.stringify(stored.rows),
      JSON.stringify(audited.rows),
      logged.slice(before).join('\n'),
    ].join('\n');
    for (const secret of [good.merchantPrivateKey, good.nagadPublicKey])
      expectNowhere(everything, secret);
    expect(everything).not.toContain(good.merchantNumber);
  });

  it('a key longer than any RSA key Nagad gives is refused by length, the value nowhere', async () => {
    const app = await createApp(t);
    const huge = 'A'.repeat(7000);
    const res = await setGateway(t, app.id, 'nagad', 'TEST', { ...good, merchantPrivateKey: huge });
    expect(res.status).toBe(400);
    expect(res.body.meta.details[0].field).toBe('credentials');
    expect(JSON.stringify(res.body)).not.toContain(huge.slice(0, 600));
  });
});
