import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';

import { readSecrets, updateSecrets } from '../common/crypto/secrets-file';
import { AppConfig } from '../config/app-config';
import { ConfigValidationError, EnvSchema } from '../config/env.schema';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../database/embedded-postgres';

interface LocalSecrets {
  jwtSecret: string;
  encryptionKeyHex: string;
}

/** Secrets generated once for an embedded install and kept beside its data (`DATA_DIR/secrets.json`). */
function localSecrets(dataDir: string): LocalSecrets {
  const file = join(dataDir, 'secrets.json');
  const existing = readSecrets(file);
  if (typeof existing.jwtSecret === 'string' && typeof existing.encryptionKeyHex === 'string') {
    return existing as unknown as LocalSecrets;
  }
  return updateSecrets(file, (s) => {
    s.jwtSecret ??= randomBytes(48).toString('base64url');
    s.encryptionKeyHex ??= randomBytes(32).toString('hex');
  }) as unknown as LocalSecrets;
}

/**
 * The database start-up uses: DATABASE_URL when set, else the embedded
 * PostgreSQL under DATA_DIR (./.data/pg), started here. Shared with the CLI.
 */
export async function openDatabase(
  env: EnvSchema,
  log: (line: string) => void,
  options: { ownProcessGroup?: boolean } = {},
): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  // A one-shot command (the admin CLI) needs no pooler: the direct URL, when there is one,
  // also takes the migrations' session lock (docs/operations.md, "What needs a session").
  if (env.DATABASE_URL) return { url: env.DATABASE_DIRECT_URL ?? env.DATABASE_URL };
  const pgDir = join(resolve(env.DATA_DIR), 'pg');
  log(`No DATABASE_URL: starting the embedded PostgreSQL in ${pgDir}`);
  const embedded = await startEmbeddedPostgres(pgDir, 'joma', { log, ...options });
  return { url: embedded.url, embedded };
}

/**
 * Turns the validated environment into the running configuration: with no
 * DATABASE_URL an embedded PostgreSQL under DATA_DIR (./.data) and locally
 * kept secrets; otherwise JWT_SECRET and ENCRYPTION_KEY are required.
 */
export async function resolveConfig(
  env: EnvSchema,
  log: (line: string) => void,
  options: { ownProcessGroup?: boolean } = {},
): Promise<{ config: AppConfig; embedded?: EmbeddedDatabase }> {
  const dataDir = resolve(env.DATA_DIR);
  if (env.DATABASE_URL) {
    const missing = (['JWT_SECRET', 'ENCRYPTION_KEY'] as const).filter((k) => !env[k]);
    if (missing.length) {
      throw new ConfigValidationError(
        `Invalid configuration:\n${missing.map((k) => `  ${k}: required when DATABASE_URL is set`).join('\n')}`,
      );
    }
    return {
      config: AppConfig.fromEnv(env, {
        databaseUrl: env.DATABASE_URL,
        jwtSecret: env.JWT_SECRET!,
        encryptionKeyHex: env.ENCRYPTION_KEY!,
      }),
    };
  }
  const { url, embedded } = await openDatabase(env, log, options);
  const secrets = localSecrets(dataDir);
  return {
    config: AppConfig.fromEnv(env, {
      databaseUrl: url,
      jwtSecret: env.JWT_SECRET ?? secrets.jwtSecret,
      encryptionKeyHex: env.ENCRYPTION_KEY ?? secrets.encryptionKeyHex,
    }),
    embedded,
  };
}
