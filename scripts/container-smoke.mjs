// A smoke set for a running Joma seen from outside, as the Docker image runs
// under compose: health and readiness, the API reference, the dashboard and
// the redirect to it, a pay page in Bangla, client addresses taken from
// X-Forwarded-For (TRUST_PROXY) so one customer's lock-out is not another's,
// and, when given, /metrics on its own port. Prints one line per check and
// exits 1 on the first failure.
//
//   node scripts/container-smoke.mjs --base-url http://localhost:3000 \
//     [--metrics-url http://127.0.0.1:9464/metrics] [--pay-url <a payable URL>]
//
// The GitHub workflow runs it against the image; test/e2e/container-smoke.e2e-spec.ts
// runs it against a test instance.
import { randomUUID } from 'node:crypto';

function arg(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const base = (arg('base-url') ?? 'http://localhost:3000').replace(/\/+$/, '');
const metricsUrl = arg('metrics-url');
const payUrl = arg('pay-url');

async function check(name, fn) {
  try {
    await fn();
    process.stdout.write(`ok   ${name}\n`);
  } catch (err) {
    process.stdout.write(`FAIL ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

await check('GET /healthz and /readyz answer 200', async () => {
  for (const path of ['/healthz', '/readyz']) {
    const res = await fetch(base + path);
    expect(res.status === 200, `${path}: ${res.status}`);
  }
});

await check('the OpenAPI document is served, with readable operation ids', async () => {
  const doc = await (await fetch(`${base}/docs-json`)).json();
  const ids = Object.values(doc.paths).flatMap((ops) =>
    Object.values(ops).map((op) => op.operationId),
  );
  expect(ids.length >= 80, `${ids.length} operations`);
  expect(ids.includes('createInvoice'), 'no createInvoice');
});

await check('GET / redirects to the dashboard, which is served', async () => {
  const res = await fetch(`${base}/`, { redirect: 'manual' });
  expect(res.status === 302 && res.headers.get('location') === '/dashboard/', `${res.status}`);
  const page = await fetch(`${base}/dashboard/`);
  expect(page.status === 200 && (await page.text()).includes('<html'), `dashboard ${page.status}`);
});

if (payUrl)
  await check('a pay page speaks Bangla and links to the public base URL', async () => {
    const res = await fetch(`${payUrl}?lang=bn`);
    const html = await res.text();
    expect(res.status === 200, `${res.status}`);
    expect(html.includes('<html lang="bn">'), 'not Bangla');
    expect(payUrl.startsWith(`${base}/pay/`), `pay link ${payUrl} is not under ${base}`);
  });

await check(
  "X-Forwarded-For names the client: one customer's login lock-out is not another's",
  async () => {
    const email = `smoke-${randomUUID()}@example.com`;
    const login = (address) =>
      fetch(`${base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
        body: JSON.stringify({ email, password: 'not-the-password-1' }),
      });
    let locked = false;
    for (let i = 0; i < 10 && !locked; i++) locked = (await login('203.0.113.7')).status === 429;
    expect(locked, 'no lock-out after 10 failures from one address');
    const other = await login('198.51.100.20');
    expect(other.status === 401, `another address got ${other.status}, not 401`);
  },
);

if (metricsUrl)
  await check('/metrics is served on its own port, not on the public one', async () => {
    const res = await fetch(metricsUrl);
    expect(res.status === 200 && (await res.text()).includes('joma_'), `metrics ${res.status}`);
    const pub = await fetch(`${base}/metrics`);
    expect(pub.status === 404, `public /metrics: ${pub.status}`);
  });
