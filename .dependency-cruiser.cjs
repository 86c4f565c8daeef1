/**
 * Module boundaries (docs/architecture.md, "Module boundaries").
 *
 * A feature is a folder directly under src/ (apps, auth, billing, invoices,
 * payments, ...). Another feature, or a benchmark under bench/, reaches it
 * only through its public door, `src/<feature>/index.ts`, which exports what
 * its Nest module exports (its module, services, DTOs, domain events and
 * record types), plus the shared entry points listed in SHARED_ENTRY_POINTS
 * (route decorators and the like, which every feature's controllers use).
 * Never its entities or anything else inside it.
 * The shared folders (common, config, database, bootstrap) may be used by all;
 * common, config and database never reach into a feature (nor the
 * composition root, src/main.ts and src/app.module.ts, which no feature but
 * src/cli/ imports either), and config, the bottom layer, uses none of the
 * other shared folders. Inside webhooks, api -> delivery -> endpoints, one way.
 * Neither feature folders nor files form cycles; every import resolves, and
 * src/ needs no devDependency at run time.
 *
 * `npm run lint:boundaries` (part of `npm run lint`) runs these rules on src/
 * and bench/, then scripts/depcruise-selftest.mjs, which proves each rule
 * still fires.
 */
const SHARED = '(?:common|config|database|bootstrap)';
/** A module inside a feature folder; $1 is the feature's name. */
const IN_FEATURE = `^src/(?!${SHARED}/)([^/]+)/`;
/** Any module inside any feature folder. */
const ANY_FEATURE = `^src/(?!${SHARED}/)[^/]+/`;

const SHARED_ENTRY_POINTS = [
  '^src/auth/decorators\\.ts$',
  '^src/auth/permissions\\.ts$',
  '^src/idempotency/idempotency\\.interceptor\\.ts$',
  '^src/events/event-catalogue\\.ts$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'feature-no-foreign-entities',
      severity: 'error',
      comment:
        "A feature reads and writes only its own tables. Use the owning feature's door (index.ts) instead of its entity.",
      from: { path: IN_FEATURE },
      to: { path: `${ANY_FEATURE}.*\\.entity\\.ts$`, pathNot: '^src/$1/' },
    },
    {
      name: 'feature-no-foreign-internals',
      severity: 'error',
      comment:
        'Another feature is reached only through its door (src/<feature>/index.ts) or a shared entry point ' +
        '(auth/decorators, auth/permissions, idempotency/idempotency.interceptor, events/event-catalogue). ' +
        'Export what you need from the door, or move it into src/common if it is feature-free.',
      from: { path: IN_FEATURE },
      to: {
        path: ANY_FEATURE,
        pathNot: [
          '^src/$1/',
          '\\.entity\\.ts$', // reported by feature-no-foreign-entities
          '^src/[^/]+/index\\.ts$',
          ...SHARED_ENTRY_POINTS,
        ],
      },
    },
    {
      name: 'shared-no-features',
      severity: 'error',
      comment:
        'src/common, src/config and src/database are feature-free building blocks; they must not import a feature ' +
        '(or the composition root), or every feature would depend on every other.',
      from: { path: '^src/(?:common|config|database)/' },
      to: { path: [ANY_FEATURE, '^src/(?:main|app\\.module)\\.ts$'] },
    },
    {
      name: 'config-at-the-bottom',
      severity: 'error',
      comment:
        'src/config is the bottom layer: every other folder may use it, it uses none of them (features and the ' +
        'composition root: shared-no-features). When config needs a value of a higher folder, the value moves ' +
        'down into config (as PASSWORD_SCRYPT_N did from common/crypto) or the caller hands it over.',
      from: { path: '^src/config/' },
      to: { path: '^src/(?:common|database|bootstrap)/' },
    },
    {
      name: 'webhooks-layers',
      severity: 'error',
      comment:
        'Inside webhooks the layers point one way: api (HTTP) uses delivery and endpoints, delivery uses ' +
        'endpoints, endpoints use neither. A lower layer that needs something from a higher one gets it ' +
        'through a domain event or by moving it down.',
      from: { path: '^src/webhooks/(endpoints|delivery)/' },
      to: { path: '^src/webhooks/api/' },
    },
    {
      name: 'webhooks-layers',
      severity: 'error',
      comment: 'Inside webhooks, endpoints (the lowest layer) uses neither delivery nor api.',
      from: { path: '^src/webhooks/endpoints/' },
      to: { path: '^src/webhooks/delivery/' },
    },
    {
      name: 'bench-through-doors',
      severity: 'error',
      comment:
        'Benchmarks reach a feature the way another feature does: through its door (src/<feature>/index.ts) ' +
        'or a shared entry point, never its internals.',
      from: { path: '^bench/' },
      to: { path: ANY_FEATURE, pathNot: ['^src/[^/]+/index\\.ts$', ...SHARED_ENTRY_POINTS] },
    },
    {
      name: 'no-composition-root-imports',
      severity: 'error',
      comment:
        'src/main.ts and src/app.module.ts wire everything; nothing inside a folder imports them.',
      from: { path: IN_FEATURE, pathNot: '^src/cli/' },
      to: { path: '^src/(?:main|app\\.module)\\.ts$' },
    },
    {
      name: 'no-feature-cycles',
      severity: 'error',
      comment:
        'Feature folders must not depend on each other in a cycle (no forwardRef): a cycle means a boundary is wrong.',
      scope: 'folder',
      from: { path: `^src/(?!${SHARED}(?:/|$))[^/]+` },
      to: { path: `^src/(?!${SHARED}(?:/|$))[^/]+`, circular: true },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment:
        'Import cycles between files make load order fragile (undefined classes in Nest decorators).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that cannot be resolved is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'not-to-dev-dep',
      severity: 'error',
      comment:
        'Production code must not need a devDependency (npm ci --omit=dev in the Docker image).',
      from: { path: '^src/', pathNot: '\\.spec\\.ts$' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Resolve node_modules by its own path even when it is a symlink (worktrees), so results match a clean clone.
    preserveSymlinks: true,
    exclude: { path: '(^|/)(dist|coverage|\\.data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['main', 'types', 'typings'],
    },
  },
};
