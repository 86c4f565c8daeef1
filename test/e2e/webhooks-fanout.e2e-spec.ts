import { WebhookFanout } from '../../src/webhooks/delivery/webhook-fanout';
import { createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { createEndpoint, recordEvent } from '../support/webhooks';

/**
 * The outbox relay claims events and marks them fanned out in one statement,
 * inside the transaction that writes their deliveries: both commit or
 * neither, and racing relays never fan one event out twice.
 */
describe('webhooks: the outbox relay', () => {
  let t: TestApp;
  let app: CreatedApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    app = await createApp(t);
    // Unreachable on purpose: the workers are off; only fan-out runs here.
    await createEndpoint(t, app.TEST, { url: 'http://127.0.0.1:9/hook' });
  });

  const relay = () => t.app.get(WebhookFanout);
  const stateOf = async (eventIds: number[]) =>
    (
      await t.db.query<{ id: number; fanned: boolean; deliveries: number }>(
        `SELECT e.id, e.fanned_out_at IS NOT NULL AS fanned,
                (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
           FROM events e WHERE e.id = ANY($1::bigint[]) ORDER BY e.id`,
        [eventIds],
      )
    ).rows;

  it('a fan-out that fails leaves its events unmarked and writes no delivery; the next one fans them out', async () => {
    const ids = [
      await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'refund.succeeded'),
      await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'refund.succeeded'),
    ];
    // Make the deliveries' insert fail, after the events were claimed and marked.
    await t.db.query(`
      CREATE FUNCTION joma_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by test'; END $$;
      CREATE TRIGGER joma_test_refuse BEFORE INSERT ON webhook_deliveries
        FOR EACH STATEMENT EXECUTE FUNCTION joma_test_refuse();`);
    try {
      await expect(relay().fanOutBatch()).rejects.toThrow(/refused by test/);
    } finally {
      await t.db.query(
        `DROP TRIGGER joma_test_refuse ON webhook_deliveries; DROP FUNCTION joma_test_refuse();`,
      );
    }
    expect(await stateOf(ids)).toEqual(ids.map((id) => ({ id, fanned: false, deliveries: 0 })));

    while ((await relay().fanOutBatch()).events > 0);
    expect(await stateOf(ids)).toEqual(ids.map((id) => ({ id, fanned: true, deliveries: 1 })));
  });

  it('relays racing over one backlog fan each event out exactly once', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 60; i++)
      ids.push(await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'refund.succeeded', { i }));
    // Four relays at once, small batches, until the backlog is gone.
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        while ((await relay().fanOutBatch(7)).events > 0);
      }),
    );
    const state = await stateOf(ids);
    expect(state).toHaveLength(60);
    expect(state.every((s) => s.fanned && s.deliveries === 1)).toBe(true);
  });
});
