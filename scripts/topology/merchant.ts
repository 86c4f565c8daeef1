/** What the drill sets up through the API before the load: an app, its TEST keys, a webhook endpoint. */
export interface Merchant {
  appId: number;
  creds: { apiKey: string; apiSecret: string };
  threshold: number;
  endpointId: number;
  endpointSecret: string;
}

async function call<T>(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<T> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data: T; meta?: unknown };
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json?.meta)}`);
  return json.data;
}

/** As the README's walk does it: log in, create an app, register the receiver for every event. */
export async function setUpMerchant(
  base: string,
  admin: { email: string; password: string },
  receiverUrl: string,
): Promise<Merchant> {
  const { token } = await call<{ token: string }>(base, '/api/v1/auth/login', {}, admin);
  const app = await call<{
    id: number;
    refundApprovalThresholdMinor: number;
    credentials: { mode: string; apiKey: string; apiSecret: string }[];
  }>(base, '/api/v1/admin/apps', { authorization: `Bearer ${token}` }, { name: 'Drill' });
  const test = app.credentials.find((c) => c.mode === 'TEST')!;
  const creds = { apiKey: test.apiKey, apiSecret: test.apiSecret };
  const endpoint = await call<{ id: number; secret: string }>(
    base,
    '/api/v1/webhook-endpoints',
    {
      'x-api-key': creds.apiKey,
      'x-api-secret': creds.apiSecret,
      'idempotency-key': 'drill-endpoint',
    },
    { url: receiverUrl, events: ['*'] },
  );
  return {
    appId: app.id,
    creds,
    threshold: Number(app.refundApprovalThresholdMinor),
    endpointId: endpoint.id,
    endpointSecret: endpoint.secret,
  };
}
