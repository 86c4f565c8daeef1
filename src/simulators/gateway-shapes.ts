import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The gateways' own answer shapes (decisions section 19): one JSON file per
 * call and answer variant under test/fixtures/gateways/<gateway>/, each
 * naming the public source it follows. The simulators answer with these
 * shapes (never with shapes of their own), so an adapter that misreads a
 * gateway fails against them as it would against the gateway.
 */
export interface GatewayFixture {
  gateway: string;
  call: string;
  variant: string;
  source: {
    kind: string;
    repository?: string;
    path?: string;
    commit?: string;
    url?: string;
    note?: string;
  };
  request: Record<string, unknown> | null;
  response: { status: number | null; body: unknown } | null;
}

/** Where the fixtures are: test/fixtures/gateways above this file (src/ or dist/src/). */
export function fixturesDir(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'test', 'fixtures', 'gateways');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir)
      throw new Error('test/fixtures/gateways not found: the simulators answer with its shapes');
  }
}

const loaded = new Map<string, Map<string, GatewayFixture>>();

/** A gateway's fixtures by `<call>.<variant>` (read once). */
export function fixturesOf(gateway: string): Map<string, GatewayFixture> {
  let byName = loaded.get(gateway);
  if (!byName) {
    byName = new Map();
    const dir = join(fixturesDir(), gateway);
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const fixture = JSON.parse(readFileSync(join(dir, file), 'utf8')) as GatewayFixture;
      byName.set(file.replace(/\.json$/, ''), fixture);
    }
    loaded.set(gateway, byName);
  }
  return byName;
}

export function fixture(gateway: string, name: string): GatewayFixture {
  const found = fixturesOf(gateway).get(name);
  if (!found) throw new Error(`no ${gateway} fixture ${name} in test/fixtures/gateways`);
  return found;
}

/**
 * An answer in a fixture's shape: its members in its order, each taking the
 * value given for it (`undefined`: left out, as the gateway leaves out what
 * does not apply), else the fixture's own (constants: status words, intent,
 * mode). Members the fixture does not have are never added. A list member
 * shapes each given item like the fixture's first.
 */
export function shaped(
  template: unknown,
  values: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const members = (template ?? {}) as Record<string, unknown>;
  for (const [key, example] of Object.entries(members)) {
    if (!(key in values)) {
      out[key] = example;
      continue;
    }
    const value = values[key];
    if (value === undefined) continue;
    out[key] =
      Array.isArray(example) && Array.isArray(value) && typeof example[0] === 'object'
        ? value.map((item) => shaped(example[0], item as Record<string, unknown>))
        : value;
  }
  return out;
}

/**
 * What is wrong with a fixture file (none: []): it must say which gateway,
 * call and variant it is (matching its file name `<call>.<variant>.json`)
 * and name a public source: a repository with a path, or an address.
 */
export function fixtureProblems(gateway: string, file: string, parsed: unknown): string[] {
  const f = (parsed ?? {}) as Partial<GatewayFixture>;
  const problems: string[] = [];
  if (f.gateway !== gateway) problems.push(`gateway is not ${gateway}`);
  if (`${f.call}.${f.variant}.json` !== file)
    problems.push('file name is not <call>.<variant>.json');
  const s = f.source;
  const named = Boolean(s && ((s.repository && s.path) || /^https?:\/\/\S+$/.test(s.url ?? '')));
  if (!named) problems.push('names no source');
  if (!s?.note) problems.push('says nothing of what the source shows (note)');
  return problems;
}

/**
 * How a member of an answer is written, for comparing an answer with a
 * published one: its JSON type, and for a string the time format it has
 * (`yyyyMMddHHmmss`, `yyyy-MM-dd HH:mm:ss.S`) or `string`.
 */
export function valueKind(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value !== 'string') return typeof value;
  if (/^\d{14}$/.test(value)) return 'yyyyMMddHHmmss';
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d$/.test(value)) return 'yyyy-MM-dd HH:mm:ss.S';
  return 'string';
}

/**
 * Where `answer` differs from a published `template` (none: []): other
 * members, or in another order, or a member written another way (valueKind).
 */
export function shapeDifferences(answer: unknown, template: unknown): string[] {
  const a = (answer ?? {}) as Record<string, unknown>;
  const t = (template ?? {}) as Record<string, unknown>;
  const differences: string[] = [];
  if (Object.keys(a).join() !== Object.keys(t).join())
    differences.push(
      `members ${Object.keys(a).join()} where the fixture has ${Object.keys(t).join()}`,
    );
  for (const key of Object.keys(t))
    if (key in a && valueKind(a[key]) !== valueKind(t[key]))
      differences.push(`${key} is ${valueKind(a[key])} where the fixture has ${valueKind(t[key])}`);
  return differences;
}
