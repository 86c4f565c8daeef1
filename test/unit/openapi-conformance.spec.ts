import { OpenApiConformance } from '../support/openapi-conformance';

/** The e2e harness's own check must catch what it is there to catch. */
describe('OpenApiConformance (the e2e response check)', () => {
  const doc = {
    paths: {
      '/things/{id}': {
        get: {
          responses: {
            '200': {
              headers: { 'X-Request-Id': {} },
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/Thing' } },
              },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          required: ['id', 'kind'],
          properties: {
            id: { type: 'integer' },
            kind: { type: 'string', enum: ['A', 'B', null], nullable: true },
            at: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
  };
  const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r' };
  const check = (status: number, body: unknown, headers: Record<string, unknown> = json) => {
    const c = new OpenApiConformance(doc);
    c.check('GET', '/things/{id}', status, headers, Buffer.from(JSON.stringify(body)));
    return c.drain();
  };

  it('passes a response the document describes (a nullable enum may be null)', () => {
    expect(check(200, { id: 1, kind: null, at: '2026-01-01T00:00:00.000Z' })).toEqual([]);
  });

  it('reports a wrong type, a missing member, a bad format and a value outside the enum', () => {
    expect(check(200, { id: '1', kind: 'A' })[0]).toMatch(/\/id must be integer/);
    expect(check(200, { id: 1 })[0]).toMatch(/must have required property 'kind'/);
    expect(check(200, { id: 1, kind: 'A', at: 'yesterday' })[0]).toMatch(/format/);
    expect(check(200, { id: 1, kind: 'C' })[0]).toMatch(/allowed values/);
  });

  it('reports an undocumented status and an undocumented header', () => {
    expect(check(404, {})).toEqual(['GET /things/{id}: status 404 is not documented']);
    expect(check(200, { id: 1, kind: 'A' }, { ...json, 'retry-after': '1' })).toEqual([
      'GET /things/{id} 200: header retry-after is sent but not documented',
    ]);
  });
});
