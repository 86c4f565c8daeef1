import type { DataSource } from 'typeorm';

import { IDLE_IN_TRANSACTION_TIMEOUT_MS } from './data-source-options';
import { sql } from './sql';

/**
 * Whether the pool's sessions run with the settings Joma asks for at
 * connect (`dataSourceOptions`: the startup parameter `options`), and if
 * not, the warning to log. A pooler in front of PostgreSQL may not pass
 * `options` on: PgBouncer refuses it unless told to ignore it
 * (`ignore_startup_parameters = options`), and then drops it, so the
 * sessions run with the role's or the server's defaults. Nothing breaks,
 * but the guard rails (statement_timeout, idle_in_transaction_session_timeout)
 * are gone unless set on the role (docs/operations.md).
 */
export async function sessionSettingsWarning(
  source: DataSource,
  statementTimeoutMs: number,
): Promise<string | null> {
  const rows = await sql(source.manager).rows<{ name: string; setting: string }>(
    `SELECT name, setting FROM pg_settings
      WHERE name IN ('TimeZone', 'statement_timeout', 'idle_in_transaction_session_timeout')`,
  );
  const got = new Map(rows.map((r) => [r.name, r.setting]));
  const off: string[] = [];
  if (Number(got.get('statement_timeout')) !== statementTimeoutMs)
    off.push(`statement_timeout is ${got.get('statement_timeout')} ms, not ${statementTimeoutMs}`);
  if (Number(got.get('idle_in_transaction_session_timeout')) !== IDLE_IN_TRANSACTION_TIMEOUT_MS)
    off.push(
      `idle_in_transaction_session_timeout is ${got.get('idle_in_transaction_session_timeout')} ms, not ${IDLE_IN_TRANSACTION_TIMEOUT_MS}`,
    );
  if (!/^(Etc\/)?(UTC|UCT|Universal|Zulu)$/.test(got.get('TimeZone') ?? ''))
    off.push(`TimeZone is ${got.get('TimeZone')}, not UTC`);
  if (!off.length) return null;
  return (
    `The database sessions do not run with Joma's settings (${off.join('; ')}): ` +
    'a pooler (PgBouncer) dropped the connection options. Set them on the role Joma connects as ' +
    `(ALTER ROLE ... SET statement_timeout = ${statementTimeoutMs}; ... SET idle_in_transaction_session_timeout = ${IDLE_IN_TRANSACTION_TIMEOUT_MS}; ... SET timezone = 'UTC'), ` +
    'see docs/operations.md, "PgBouncer"'
  );
}
