import { ConfigValidationError } from '../config/env.schema';
import { EmbeddedPostgresError } from '../database/embedded-postgres-error';

interface ErrLike {
  message?: string;
  code?: string;
  address?: string;
  port?: number;
  syscall?: string;
}

function where(databaseUrl: string | undefined): string {
  if (!databaseUrl) return 'the database';
  try {
    const u = new URL(databaseUrl);
    return `the database at ${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'the database in DATABASE_URL';
  }
}

/**
 * One sentence for a start-up failure: what went wrong and what to do. Never
 * `undefined`, never a stack trace, never a password from DATABASE_URL.
 */
export function describeStartupError(
  err: unknown,
  ctx: { port?: number; databaseUrl?: string } = {},
): string {
  if (err instanceof ConfigValidationError || err instanceof EmbeddedPostgresError) {
    return err.message;
  }
  if (err === undefined || err === null) {
    return 'Start-up failed without a reason. Run again with LOG_LEVEL=debug, and report it if it repeats.';
  }
  const e = (typeof err === 'object' ? err : { message: String(err) }) as ErrLike;
  const db = where(ctx.databaseUrl);
  switch (e.code) {
    case 'EADDRINUSE':
      return `Port ${e.port ?? ctx.port} is already in use (another Joma, or another program): stop it, or set PORT to a free port.`;
    case 'EACCES':
      if (e.syscall === 'listen') {
        return `Not allowed to listen on port ${e.port ?? ctx.port}: choose a port above 1023 with PORT, or run with the right to bind it.`;
      }
      break;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return `Cannot reach ${db} (${e.code}): check DATABASE_URL and that PostgreSQL is running there.`;
    case '28P01':
    case '28000':
      return `${db} refused the user or password in DATABASE_URL (${e.code}): fix the credentials.`;
    case '3D000':
      return `${db} does not exist (${e.code}): create it (createdb) or fix the database name in DATABASE_URL.`;
    case '42501':
      return `The user in DATABASE_URL lacks a privilege Joma needs on ${db} (${e.message}): grant it, or use the database owner.`;
  }
  const message = e.message?.trim() || String(err);
  return `Start-up failed: ${message}`;
}
