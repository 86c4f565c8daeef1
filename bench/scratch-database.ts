import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { Client } from 'pg';

import { startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { runMigrations } from '../src/database/migrate';
import { assertServerQuiet } from './busy-server';

/** The repository's root, whether this runs from bench/ (ts-node) or compiled from dist/bench/bench/. */
export const repoRoot = __filename.endsWith('.js')
  ? join(__dirname, '..', '..', '..')
  : join(__dirname, '..');

export interface ScratchDatabase {
  url: string;
  /** Drops the database (and stops an embedded server). */
  drop(): Promise<void>;
}

/**
 * A migrated scratch database for a benchmark: on the DATABASE_URL server, or
 * on an embedded PostgreSQL under .data/bench-pg. Dropped by `drop()`.
 */
export async function scratchDatabase(label: string): Promise<ScratchDatabase> {
  let serverUrl: string;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (process.env.DATABASE_URL) {
    const u = new URL(process.env.DATABASE_URL);
    u.pathname = '';
    serverUrl = u.toString().replace(/\/$/, '');
  } else {
    const embedded = await startEmbeddedPostgres(join(repoRoot, '.data', 'bench-pg'), 'postgres');
    serverUrl = embedded.url.replace(/\/postgres$/, '');
    stopEmbedded = () => embedded.stop();
  }
  const name = `joma_bench_${label}_${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const admin = new Client({ connectionString: `${serverUrl}/postgres` });
  await admin.connect();
  const release = async () => {
    await admin.end();
    if (stopEmbedded) await stopEmbedded();
  };
  try {
    await assertServerQuiet(admin);
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (err) {
    await release();
    throw err;
  }
  const url = `${serverUrl}/${name}`;
  const drop = async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await release();
  };
  try {
    await runMigrations(url);
  } catch (err) {
    await drop();
    throw err;
  }
  return { url, drop };
}

/** Where the benchmark ran, for its report. */
export const databaseLabel = () =>
  process.env.DATABASE_URL ? 'DATABASE_URL server (scratch database)' : 'embedded PostgreSQL';
