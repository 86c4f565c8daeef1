import { parseArgs } from 'node:util';

import { NestFactory } from '@nestjs/core';

import { AdminUsersService } from '../auth';
import { openDatabase } from '../bootstrap/resolve-config';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { ConfigValidationError, validateEnv } from '../config/env.schema';
import { EmbeddedPostgresError } from '../database/embedded-postgres-error';
import { runMigrations } from '../database/migrate';
import { AdminCliModule } from './admin-cli.module';
import { CliIo, EXIT } from './admin-create.command';

export const PASSWORD_ENV = 'JOMA_ADMIN_PASSWORD';

export const ADMIN_SET_PASSWORD_USAGE = [
  'Usage: npm run cli -- admin:set-password --email <email>',
  `  The new password (at least 12 characters) comes from standard input (one line),`,
  `  or from the ${PASSWORD_ENV} environment variable; never from the command line,`,
  '  where other users of the machine could read it. Every session of that user is revoked.',
  '  Example: read -rs PW && printf %s "$PW" | npm run cli -- admin:set-password --email you@example.com',
].join('\n');

/** Input of the CLI beyond arguments and environment: standard input, read once. */
export interface CliInput {
  readStdin(): Promise<string>;
}

/**
 * `admin:set-password`: sets an admin's password (a forgotten super admin
 * password, say) with the operator's own authority, and revokes their sessions.
 */
export async function adminSetPasswordCommand(
  args: string[],
  env: Record<string, string | undefined>,
  io: CliIo & CliInput,
): Promise<number> {
  let email: string | undefined;
  try {
    ({
      values: { email },
    } = parseArgs({ args, options: { email: { type: 'string' } }, strict: true }));
  } catch (err) {
    io.err(`admin:set-password: ${(err as Error).message}\n${ADMIN_SET_PASSWORD_USAGE}`);
    return EXIT.USAGE;
  }
  if (!email) {
    io.err(`admin:set-password: Missing --email\n${ADMIN_SET_PASSWORD_USAGE}`);
    return EXIT.USAGE;
  }
  const password = (env[PASSWORD_ENV] ?? (await io.readStdin())).replace(/\r?\n$/, '');
  if (password.length < 12) {
    io.err(
      `admin:set-password: the password must have at least 12 characters\n${ADMIN_SET_PASSWORD_USAGE}`,
    );
    return EXIT.USAGE;
  }
  let stopEmbedded: (() => Promise<void>) | undefined;
  try {
    const db = await openDatabase(validateEnv(env), (line) => io.err(line));
    stopEmbedded = db.embedded?.stop;
    await runMigrations(db.url);
    const ctx = await NestFactory.createApplicationContext(AdminCliModule.forRoot(db.url), {
      logger: false,
    });
    try {
      const users = ctx.get(AdminUsersService);
      const user = await users.getByEmail(email);
      await users.setPassword(user.id, password);
      io.out(`Password set for admin user ${user.id} <${user.email}>; their sessions were revoked`);
    } finally {
      await ctx.close();
    }
    return EXIT.OK;
  } catch (err) {
    if (err instanceof ConfigValidationError) {
      io.err(err.message);
      return EXIT.USAGE;
    }
    if (err instanceof AppError && err.code === ErrorCode.RESOURCE_NOT_FOUND) {
      io.err(`admin:set-password: no admin user has the email ${email}`);
    } else if (err instanceof EmbeddedPostgresError) {
      io.err(err.message);
    } else {
      io.err(`admin:set-password failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return EXIT.FAILED;
  } finally {
    await stopEmbedded?.().catch(() => undefined);
  }
}
