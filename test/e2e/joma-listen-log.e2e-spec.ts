import { listen } from '../../clients/typescript/src/listen';
import { captureLogs } from '../support/capture-logs';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { createInvoice } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhooks';

/**
 * Issue 58: polling, `joma listen` (clients/typescript/src/listen.ts) asks
 * only for what is new (`afterId`), and the service writes a poll that found
 * nothing at debug: a listener left running for 22 minutes had written 1,190
 * request lines at info. A poll that brought events is still written at info.
 * (A file of its own: the service's root logger is made once per file, at
 * the level of the first app, silent in joma-listen.e2e-spec.ts.)
 */
describe('joma listen in the service log', () => {
  let t: TestApp;
  let app: CreatedApp;
  let logged: string[];

  beforeAll(async () => {
    logged = captureLogs();
    t = await createTestApp({ config: { logLevel: 'debug' } });
    app = await createApp(t);
  });
  afterAll(async () => {
    await t.close();
    jest.restoreAllMocks();
  });

  /** The request lines of GET /api/v1/events written so far: their levels, oldest first. */
  const eventsLines = () =>
    logged
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{') && l.includes('"path":"/api/v1/events"'))
      .map((l) => JSON.parse(l) as { level: number; res: { statusCode: number } });

  it('writes polls that find nothing at debug, the polls that bring events at info', async () => {
    const forwarded: string[] = [];
    const listener = await listen({
      baseUrl: t.baseUrl,
      apiKey: app.TEST.apiKey,
      apiSecret: app.TEST.apiSecret,
      intervalMs: 50,
      log: (line) => forwarded.push(line),
    });
    try {
      // Lines are written within 100 ms; a few quiet polls first.
      await eventually(
        async () => eventsLines().filter((l) => l.level === 20).length >= 5,
        10_000,
        'quiet polls logged',
      );
      const quietBefore = eventsLines();
      // Only the listener's start (the newest event's id) is at info so far.
      expect(quietBefore.filter((l) => l.level === 30)).toHaveLength(1);
      await createInvoice(t, app.TEST);
      await eventually(async () => listener.forwarded() === 1, 10_000, 'invoice.issued forwarded');
      await eventually(
        async () => eventsLines().length > quietBefore.length + 2,
        10_000,
        'more polls',
      );
      const lines = eventsLines();
      // The poll that brought invoice.issued, at info; every other one at debug.
      expect(lines.filter((l) => l.level === 30)).toHaveLength(2);
      expect(lines.filter((l) => l.level !== 20 && l.level !== 30)).toEqual([]);
      expect(lines.every((l) => l.res.statusCode === 200)).toBe(true);
      expect(forwarded.some((l) => l.includes(`--> invoice.issued`))).toBe(true);
    } finally {
      await listener.stop();
    }
  });

  it('GET /events?afterId= lists only the events after that one, in the order asked; a bad afterId is 400', async () => {
    const all = await t
      .http()
      .get('/api/v1/events?sortBy=id&order=asc&size=100')
      .set(asApp(app.TEST));
    const ids = (all.body.data as { id: number }[]).map((e) => e.id);
    expect(ids.length).toBeGreaterThanOrEqual(1);
    const after = await t
      .http()
      .get(`/api/v1/events?afterId=${ids[0] - 1}&sortBy=id&order=asc`)
      .set(asApp(app.TEST));
    expect(after.status).toBe(200);
    expect((after.body.data as { id: number }[]).map((e) => e.id)).toEqual(ids);
    expect(after.body.pagination.totalElements).toBe(ids.length);
    const none = await t
      .http()
      .get(`/api/v1/events?afterId=${ids[ids.length - 1]}`)
      .set(asApp(app.TEST));
    expect([none.status, none.body.data, none.body.pagination.totalElements]).toEqual([200, [], 0]);
    const bad = await t.http().get('/api/v1/events?afterId=-1').set(asApp(app.TEST));
    expect([bad.status, bad.body.meta.errorCode]).toEqual([400, 'VALIDATION_FAILED']);
  });
});
