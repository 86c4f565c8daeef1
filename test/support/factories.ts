import type { Permission } from '../../src/auth/permissions';
import { SUPER_ADMIN, TestApp } from './test-app';

export interface Credentials {
  apiKey: string;
  apiSecret: string;
}

export interface CreatedApp {
  id: number;
  name: string;
  TEST: Credentials;
  LIVE: Credentials;
}

export async function login(t: TestApp, email: string, password: string): Promise<string> {
  const res = await t.http().post('/api/v1/auth/login').send({ email, password });
  if (res.status !== 200)
    throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.token as string;
}

const tokens = new WeakMap<TestApp, string>();
export async function superAdminToken(t: TestApp): Promise<string> {
  let token = tokens.get(t);
  if (!token) {
    token = await login(t, SUPER_ADMIN.email, SUPER_ADMIN.password);
    tokens.set(t, token);
  }
  return token;
}

let seq = 0;
/** An admin user with exactly these permissions, logged in. */
export async function adminWith(
  t: TestApp,
  permissions: Permission[],
  opts: { appIds?: number[] } = {},
): Promise<{ id: number; email: string; token: string }> {
  const email = `admin${++seq}-${Date.now()}@joma.test`;
  const password = 'admin-password-123';
  const res = await t
    .http()
    .post('/api/v1/admin/users')
    .set('Authorization', `Bearer ${await superAdminToken(t)}`)
    .send({ email, name: `Admin ${seq}`, password, permissions, ...opts });
  if (res.status !== 201)
    throw new Error(`create admin failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.data.id, email, token: await login(t, email, password) };
}

export async function createApp(t: TestApp, name = `App ${++seq}`): Promise<CreatedApp> {
  const res = await t
    .http()
    .post('/api/v1/admin/apps')
    .set('Authorization', `Bearer ${await superAdminToken(t)}`)
    .send({ name });
  if (res.status !== 201)
    throw new Error(`create app failed: ${res.status} ${JSON.stringify(res.body)}`);
  const creds = res.body.data.credentials as {
    mode: 'TEST' | 'LIVE';
    apiKey: string;
    apiSecret: string;
  }[];
  const pick = (m: string) => {
    const c = creds.find((x) => x.mode === m)!;
    return { apiKey: c.apiKey, apiSecret: c.apiSecret };
  };
  return { id: res.body.data.id, name, TEST: pick('TEST'), LIVE: pick('LIVE') };
}

/** Headers for an app call in one mode. */
export function asApp(c: Credentials): Record<string, string> {
  return { 'X-Api-Key': c.apiKey, 'X-Api-Secret': c.apiSecret };
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}
