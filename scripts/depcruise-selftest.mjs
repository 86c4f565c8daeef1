// Proves the module-boundary rules in .dependency-cruiser.cjs still fire.
// Builds a throw-away src/ tree in a temp directory (outside the repository)
// with one deliberate violation per rule plus imports that must stay allowed,
// runs depcruise on it with the project's config, and fails unless exactly the
// expected violations are reported. Part of `npm run lint`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');

const files = {
  'src/app.module.ts': `import { AlphaModule } from './alpha/alpha.module';\nexport const root = [AlphaModule];\n`,
  'src/alpha/alpha.module.ts': `export class AlphaModule {}\n`,
  'src/alpha/alpha.service.ts': `export class AlphaService {}\n`,
  'src/alpha/alpha.entity.ts': `export class Alpha {}\n`,
  'src/alpha/alpha-internal.ts': `export const secretRule = 1;\n`,
  'src/alpha/dto/alpha.dto.ts': `export class AlphaDto {}\n`,
  'src/alpha/index.ts': `export { AlphaModule } from './alpha.module';\nexport { AlphaService } from './alpha.service';\nexport { AlphaDto } from './dto/alpha.dto';\n`,
  'src/auth/decorators.ts': `import { XGuard } from './guards/x.guard';\nexport const AppAuth = () => XGuard;\n`,
  'src/auth/guards/x.guard.ts': `import { AuthService } from '../auth.service';\nexport class XGuard { s = AuthService; }\n`,
  'src/auth/auth.service.ts': `export class AuthService {}\n`,
  'src/common/util.ts': `import { BetaService } from '../beta/beta.service';\nexport const u = BetaService;\n`,
  'src/config/cfg.ts': `import { root } from '../app.module';\nexport const c = root;\n`,
  // config is the bottom layer: config -> common is refused; common -> config stays allowed.
  'src/config/limits.ts': `import { hashCost } from '../common/hash';\nexport const limit = hashCost;\n`,
  'src/common/hash.ts': `import { c } from '../config/cfg';\nexport const hashCost = c;\n`,
  // beta: allowed imports first, then one violation of each kind.
  'src/beta/beta.service.ts': [
    `import { AlphaService, AlphaModule, AlphaDto } from '../alpha';`,
    `import { AppAuth } from '../auth/decorators';`,
    `import { AlphaService as Direct } from '../alpha/alpha.service';`,
    `import { c } from '../config/cfg';`,
    `import type { Alpha } from '../alpha/alpha.entity';`,
    `import { secretRule } from '../alpha/alpha-internal';`,
    `import { XGuard } from '../auth/guards/x.guard';`,
    `export class BetaService { deps = [AlphaService, AlphaModule, AlphaDto, AppAuth, c, secretRule, XGuard, Direct]; a?: Alpha; }`,
    '',
  ].join('\n'),
  'src/beta/beta.module.ts': `import { root } from '../app.module';\nexport class BetaModule { r = root; }\n`,
  // gamma <-> delta: a cycle between folders with no cycle between files.
  'src/gamma/gamma.module.ts': `export class GammaModule {}\n`,
  'src/gamma/index.ts': `export { GammaModule } from './gamma.module';\n`,
  'src/gamma/gamma.service.ts': `import { DeltaService } from '../delta';\nexport class GammaService { d = DeltaService; }\n`,
  'src/delta/index.ts': `export { DeltaService } from './delta.service';\n`,
  'src/delta/delta.service.ts': `import { GammaModule } from '../gamma';\nexport class DeltaService { g = GammaModule; }\n`,
  // webhooks: a lower layer reaching up (delivery -> api, endpoints -> delivery); the real tree
  // proves the allowed direction (api -> delivery -> endpoints).
  'src/webhooks/api/y.ts': `export const y = 1;\n`,
  'src/webhooks/delivery/sender.ts': `import { y } from '../api/y';\nexport const send = () => y;\n`,
  'src/webhooks/endpoints/ep.ts': `import { fmt } from '../delivery/format';\nexport class Ep { f = fmt; }\n`,
  'src/webhooks/delivery/format.ts': `export const fmt = 1;\n`,
  // bench: a feature's internals (the door is allowed).
  'bench/probe.ts': `import { AlphaService } from '../src/alpha/alpha.service';\nimport { AlphaModule } from '../src/alpha';\nexport const p = [AlphaService, AlphaModule];\n`,
  // eps: a cycle between two files of one feature.
  'src/eps/a.ts': `import { b } from './b';\nexport const a = () => b;\n`,
  'src/eps/b.ts': `import { a } from './a';\nexport const b = () => a;\n`,
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'commonjs', target: 'ES2022', strict: true },
  }),
};

const expected = [
  'feature-no-foreign-entities src/beta/beta.service.ts -> src/alpha/alpha.entity.ts',
  'feature-no-foreign-internals src/beta/beta.service.ts -> src/alpha/alpha-internal.ts',
  'feature-no-foreign-internals src/beta/beta.service.ts -> src/alpha/alpha.service.ts',
  'feature-no-foreign-internals src/beta/beta.service.ts -> src/auth/guards/x.guard.ts',
  'shared-no-features src/common/util.ts -> src/beta/beta.service.ts',
  'shared-no-features src/config/cfg.ts -> src/app.module.ts',
  'config-at-the-bottom src/config/limits.ts -> src/common/hash.ts',
  'no-composition-root-imports src/beta/beta.module.ts -> src/app.module.ts',
  'no-feature-cycles src/delta <-> src/gamma',
  'no-module-cycles src/eps/a.ts <-> src/eps/b.ts',
  'webhooks-layers src/webhooks/delivery/sender.ts -> src/webhooks/api/y.ts',
  'webhooks-layers src/webhooks/endpoints/ep.ts -> src/webhooks/delivery/format.ts',
  'bench-through-doors bench/probe.ts -> src/alpha/alpha.service.ts',
].sort();

/** One line per violation; a cycle is one finding whichever of its edges is reported. */
const describe = ({ rule, from, to }) =>
  rule.name.includes('cycles')
    ? `${rule.name} ${[from, to].sort().join(' <-> ')}`
    : `${rule.name} ${from} -> ${to}`;

const dir = mkdtempSync(join(tmpdir(), 'joma-depcruise-'));
try {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  let out;
  try {
    out = execFileSync(
      process.execPath,
      [
        depcruise,
        'src',
        'bench',
        '--config',
        join(root, '.dependency-cruiser.cjs'),
        '--output-type',
        'json',
      ],
      { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } catch (err) {
    // depcruise exits non-zero when it finds errors, which is what we want here.
    out = err.stdout;
    if (!out) throw err;
  }
  const violations = JSON.parse(out).summary.violations.map(describe);
  const actual = [...new Set(violations)].sort();
  const missing = expected.filter((v) => !actual.includes(v));
  const unexpected = actual.filter((v) => !expected.includes(v));
  if (missing.length || unexpected.length) {
    console.error('depcruise self-test FAILED: the boundary rules do not fire as expected.');
    for (const v of missing) console.error(`  missing:    ${v}`);
    for (const v of unexpected) console.error(`  unexpected: ${v}`);
    process.exitCode = 1;
  } else {
    console.log(
      `depcruise self-test: all ${expected.length} deliberate violations caught, allowed imports pass.`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
