import { createTestApp, TestApp } from '../support/test-app';

describe('foundation: envelope and errors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('serves /healthz in the envelope with a request id', async () => {
    const res = await t.http().get('/healthz').set('X-Request-Id', 'abc-123');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('abc-123');
    expect(res.body).toEqual({
      data: { status: 'ok' },
      meta: { success: true, message: 'OK', timestamp: expect.any(String) },
      pagination: { page: 0, size: 0, totalElements: 0, totalPages: 0 },
    });
  });
});
