import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import type { TestApp } from './test-app';

const run = promisify(execFile);

/**
 * A guide's walk: the first bash block of the section whose heading starts
 * with `heading`, run as typed against a test instance (only the base URL
 * differs), and the output the section promises under "It prints:".
 */
export async function runDocWalk(
  t: TestApp,
  doc: string,
  heading: string,
): Promise<{ printed: string[]; promised: string[] }> {
  const text = readFileSync(resolve(__dirname, '..', '..', doc), 'utf8');
  const start = text.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`${doc} has no section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  const script = /```bash\n([\s\S]*?)```/.exec(section)![1];
  const promised = /It prints:\n\n```\n([\s\S]*?)```/.exec(section)![1];
  if (!script.includes('B=http://localhost:3000\n'))
    throw new Error('The walk must start from B=http://localhost:3000');
  const dir = mkdtempSync(join(tmpdir(), 'joma-walk-'));
  try {
    writeFileSync(
      join(dir, 'walk.sh'),
      `set -euo pipefail\n${script.replace('B=http://localhost:3000\n', `B=${t.baseUrl}\n`)}`,
    );
    const { stdout } = await run('bash', [join(dir, 'walk.sh')], { cwd: dir });
    return { printed: stdout.trim().split('\n'), promised: promised.trim().split('\n') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
