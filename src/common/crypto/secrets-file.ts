import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export type SecretsFile = Record<string, unknown>;

/** The locally kept secrets of an embedded install (`DATA_DIR/secrets.json`), or {}. */
export function readSecrets(file: string): SecretsFile {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SecretsFile) : {};
}

/**
 * Changes `DATA_DIR/secrets.json` in place, keeping what else it holds, and
 * writes it back readable by its owner only (0600), atomically.
 */
export function updateSecrets(file: string, mutate: (secrets: SecretsFile) => void): SecretsFile {
  const secrets = readSecrets(file);
  mutate(secrets);
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return secrets;
}
