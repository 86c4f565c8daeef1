import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { BKASH_SHAPES } from '../../src/simulators/bkash.simulator';
import { fixtureProblems, fixturesDir } from '../../src/simulators/gateway-shapes';

/**
 * Decisions section 19: every fixture under test/fixtures/gateways names the
 * public source it follows (a repository and path, or an address), and the
 * simulators answer only with fixtures that exist.
 */
describe('gateway fixtures name their sources', () => {
  const files = readdirSync(fixturesDir(), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(fixturesDir(), d.name))
        .filter((f) => f.endsWith('.json'))
        .map((f) => [d.name, f] as const),
    );

  it('there are fixtures for SSLCommerz, bKash and Nagad', () => {
    expect(new Set(files.map(([g]) => g))).toEqual(new Set(['bkash', 'nagad', 'sslcommerz']));
    expect(files.length).toBeGreaterThan(50);
  });

  it.each(files)('%s/%s names its source', (gateway, file) => {
    const parsed = JSON.parse(readFileSync(join(fixturesDir(), gateway, file), 'utf8')) as unknown;
    expect(fixtureProblems(gateway, file, parsed)).toEqual([]);
  });

  it('the check fails a fixture that names no source, or only half of one', () => {
    const base = { gateway: 'bkash', call: 'execute', variant: 'x', request: {}, response: null };
    expect(fixtureProblems('bkash', 'execute.x.json', base)).toContain('names no source');
    expect(
      fixtureProblems('bkash', 'execute.x.json', {
        ...base,
        source: { kind: 'sdk', repository: 'a/b' },
      }),
    ).toContain('names no source');
    expect(
      fixtureProblems('bkash', 'execute.y.json', {
        ...base,
        source: { kind: 'sdk', url: 'https://example.org/x', note: 'n' },
      }),
    ).toContain('file name is not <call>.<variant>.json');
  });

  const keyFiles = readdirSync(join(fixturesDir(), 'nagad', 'keys')).filter((f) =>
    f.endsWith('.json'),
  );
  it.each(keyFiles)('nagad/keys/%s names its source and holds a public key only', (file) => {
    const parsed = JSON.parse(readFileSync(join(fixturesDir(), 'nagad', 'keys', file), 'utf8')) as {
      key?: string;
      publicKey?: string;
      source?: Record<string, string>;
    } & Record<string, unknown>;
    expect(parsed.key).toBe(file.replace(/\.json$/, ''));
    const s = parsed.source ?? {};
    expect(Boolean(s.repository && s.path && s.commit && s.url && s.note)).toBe(true);
    expect(parsed.publicKey).toMatch(/^MIIB[A-Za-z0-9+/]+=*$/);
    expect(JSON.stringify(parsed)).not.toMatch(/PRIVATE KEY|MIIE[uv]/);
  });

  it("the bKash simulator's default shapes are published fixtures", () => {
    const names = new Set(
      files.filter(([g]) => g === 'bkash').map(([, f]) => f.replace(/\.json$/, '')),
    );
    for (const shape of Object.values(BKASH_SHAPES)) expect(names).toContain(shape);
  });
});
