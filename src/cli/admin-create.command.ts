import { parseArgs } from 'node:util';

import { NestFactory } from '@nestjs/core';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

import { AdminUsersService, NewAdminUser } from '../auth';
import { CreateAdminUserDto } from '../auth';
import { PERMISSIONS } from '../auth/permissions';
import { openDatabase } from '../bootstrap/resolve-config';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { ConfigValidationError, validateEnv } from '../config/env.schema';
import { EmbeddedPostgresError } from '../database/embedded-postgres-error';
import { runMigrations } from '../database/migrate';
import { AdminCliModule } from './admin-cli.module';

export const ADMIN_CREATE_USAGE = [
  'Usage: npm run cli -- admin:create --email <email> --name <name> [--super] [--permissions a,b]',
  '  The password (at least 12 characters) comes from standard input or JOMA_ADMIN_PASSWORD;',
  '  --password <password> also works but shows in the process list and shell history.',
  `  --permissions  comma-separated, from: ${PERMISSIONS.join(', ')}`,
  '  --super        a super admin (passes every permission check)',
  'Uses DATABASE_URL, or the embedded PostgreSQL under ./.data that `npm start` uses (stop the service first).',
].join('\n');

/** Exit codes: 0 created, 1 refused or failed (duplicate email, database), 2 bad arguments. */
export const EXIT = { OK: 0, FAILED: 1, USAGE: 2 } as const;

export class CliUsageError extends Error {}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** Parses and validates the arguments with the same rules as POST /api/v1/admin/users. */
export function parseAdminCreateArgs(args: string[]): NewAdminUser {
  let values: {
    email?: string;
    password?: string;
    name?: string;
    super?: boolean;
    permissions?: string;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        name: { type: 'string' },
        super: { type: 'boolean' },
        permissions: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new CliUsageError((err as Error).message);
  }
  const missing = (['email', 'password', 'name'] as const).filter((k) => values[k] === undefined);
  if (missing.length) throw new CliUsageError(`Missing ${missing.map((k) => `--${k}`).join(', ')}`);
  const dto = plainToInstance(CreateAdminUserDto, {
    email: values.email,
    password: values.password,
    name: values.name,
    superAdmin: values.super ?? false,
    permissions:
      values.permissions === undefined
        ? []
        : values.permissions
            .split(',')
            .map((p) => p.trim())
            .filter(Boolean),
  });
  const errors = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length) {
    const flag = (property: string) => (property === 'superAdmin' ? '--super' : `--${property}`);
    throw new CliUsageError(
      errors
        .map((e) => `${flag(e.property)}: ${Object.values(e.constraints ?? {}).join('; ')}`)
        .join('\n'),
    );
  }
  return {
    email: dto.email,
    password: dto.password,
    name: dto.name,
    superAdmin: dto.superAdmin,
    permissions: dto.permissions,
  };
}

/** Migrates the database, then creates the user through AdminUsersService in a standalone Nest context. */
export async function createAdminUser(
  databaseUrl: string,
  input: NewAdminUser,
): ReturnType<AdminUsersService['create']> {
  await runMigrations(databaseUrl);
  const ctx = await NestFactory.createApplicationContext(AdminCliModule.forRoot(databaseUrl), {
    logger: false,
  });
  try {
    return await ctx.get(AdminUsersService).create(input);
  } finally {
    await ctx.close();
  }
}

/**
 * `admin:create`: prints the new user's id (never the password) and returns
 * the process exit code. `env` is the process environment (DATABASE_URL, DATA_DIR).
 */
export async function adminCreateCommand(
  args: string[],
  env: Record<string, string | undefined>,
  io: CliIo & { readStdin?: () => Promise<string> },
): Promise<number> {
  let input: NewAdminUser;
  try {
    // Without --password the password comes from JOMA_ADMIN_PASSWORD or standard
    // input, so it never shows in the process list or the shell history.
    const hasFlag = args.some((a) => a === '--password' || a.startsWith('--password='));
    if (!hasFlag) {
      const piped = env.JOMA_ADMIN_PASSWORD ?? (io.readStdin ? await io.readStdin() : '');
      const password = piped.replace(/\r?\n$/, '');
      if (password) args = [...args, '--password', password];
    }
    input = parseAdminCreateArgs(args);
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    io.err(`admin:create: ${err.message}\n${ADMIN_CREATE_USAGE}`);
    return EXIT.USAGE;
  }
  let stopEmbedded: (() => Promise<void>) | undefined;
  try {
    const parsedEnv = validateEnv(env);
    const db = await openDatabase(parsedEnv, (line) => io.err(line)).catch((err: unknown) => {
      if (parsedEnv.DATABASE_URL || err instanceof EmbeddedPostgresError) throw err;
      throw new Error(
        `could not start the embedded PostgreSQL under ${parsedEnv.DATA_DIR} (${describe(err)}). ` +
          'If `npm start` is running on it, stop it first, or set DATABASE_URL.',
      );
    });
    stopEmbedded = db.embedded ? () => db.embedded!.stop() : undefined;
    const user = await createAdminUser(db.url, input);
    const role = user.superAdmin
      ? 'super admin'
      : `permissions: ${user.permissions.join(',') || '(none)'}`;
    io.out(`Created admin user ${user.id} <${user.email}> (${role})`);
    return EXIT.OK;
  } catch (err) {
    if (err instanceof AppError && err.code === ErrorCode.DUPLICATE_RESOURCE) {
      io.err(`admin:create: an admin user with email ${input.email} already exists`);
    } else if (err instanceof ConfigValidationError) {
      io.err(err.message);
      return EXIT.USAGE;
    } else {
      io.err(`admin:create failed: ${describe(err)}`);
    }
    return EXIT.FAILED;
  } finally {
    await stopEmbedded?.().catch(() => undefined);
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  return err === undefined ? 'no reason given' : String(err);
}
