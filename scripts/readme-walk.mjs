// The README's walk ("Try it"), typed literally: its bash blocks run in
// order against a running Joma (only the base URL differs), with step 5,
// the customer's clicks in a browser, done over HTTP in between. Prints one
// JSON line: the payable URL, the customer's landing, the events the last
// block lists and the ones joma listen received.
//
//   node scripts/readme-walk.mjs --base-url http://localhost:3000
//
// test/e2e/readme-walk.e2e-spec.ts runs it against a test instance; the
// GitHub workflow runs it against the Docker image (compose).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The bash blocks of the README's "Try it" section, in order. */
export function readmeWalk(readme) {
  const start = readme.indexOf('### Try it');
  const end = readme.indexOf('\n## ', start);
  return [...readme.slice(start, end).matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** Runs the walk against `baseUrl`; what it saw. */
export function runReadmeWalk(baseUrl, readme = readFileSync(join(root, 'README.md'), 'utf8')) {
  const blocks = readmeWalk(readme);
  if (blocks.length !== 3 || !blocks[0].includes('B=http://localhost:3000\n'))
    throw new Error('the README walk is not the three blocks this script knows');
  const [setup, listen, events] = blocks.map((b) =>
    b.replace('B=http://localhost:3000\n', `B=${baseUrl}\n`),
  );
  const dir = mkdtempSync(join(tmpdir(), 'joma-readme-'));
  try {
    // As the reader waits for it: joma listen has said Ready. before they pay.
    const waitFor = (text, seconds) =>
      `for _ in $(seq 1 ${seconds * 10}); do grep -q '${text}' "$LISTEN" && break; sleep 0.1; done; grep -q '${text}' "$LISTEN"`;
    const script = [
      'set -euo pipefail',
      // Job control, as in the reader's terminal: `kill %1` then stops the whole
      // job (npm and the joma process under it), not npm alone.
      'set -m',
      `OUT=${join(dir, 'out.txt')}`,
      `STEPS=${join(dir, 'steps.txt')}`,
      `LISTEN=${join(dir, 'listen.txt')}`,
      "trap 'kill %1 2>/dev/null || true' EXIT",
      `{\n${setup}\n} > "$OUT"`,
      `{\n${listen}\n} > "$LISTEN" 2>&1`,
      waitFor('Ready.', 120),
      // Step 5 as the customer's browser does it: Pay on the pay page, then Pay
      // on the sandbox checkout; the browser follows the checkout's 303 back to
      // Joma, which verifies with the gateway.
      'URL=$(tail -n 1 "$OUT")',
      'CHECKOUT=$(curl -s -o /dev/null -w "%{redirect_url}" -X POST "$URL")',
      'curl -s -L -o /dev/null -w "%{http_code} %{url_effective}\\n" "$CHECKOUT" -d outcome=pay >> "$STEPS"',
      waitFor('invoice.paid', 30),
      events,
    ].join('\n');
    writeFileSync(join(dir, 'walk.sh'), script);
    // From the repository, as the reader types it (npm run needs its package.json).
    const stdout = execFileSync('bash', [join(dir, 'walk.sh')], { cwd: root, encoding: 'utf8' });
    const listened = readFileSync(join(dir, 'listen.txt'), 'utf8');
    return {
      payableUrl: readFileSync(join(dir, 'out.txt'), 'utf8').trim(),
      landing: readFileSync(join(dir, 'steps.txt'), 'utf8').trim(),
      events: stdout.trim().split('\n'),
      received: listened
        .split('\n')
        .flatMap((l) => /--> ([a-z_.]+) \[evt_\d+\]/.exec(l)?.[1] ?? []),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--base-url');
  const baseUrl = (i > 0 ? process.argv[i + 1] : undefined) ?? 'http://localhost:3000';
  const result = runReadmeWalk(baseUrl);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  const ok =
    /\/pay\/[A-Za-z0-9_-]{20,64}$/.test(result.payableUrl) &&
    result.landing === `200 ${result.payableUrl}` &&
    result.events.join(',') === 'invoice.issued,payment.succeeded,invoice.paid' &&
    result.received.join(',') === 'payment.succeeded,invoice.paid';
  if (!ok) {
    process.stderr.write('The README walk did not end as the README says.\n');
    process.exit(1);
  }
}
