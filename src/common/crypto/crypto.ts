import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hash,
  type KeyObject,
  randomBytes,
  randomFillSync,
  scrypt as scryptCb,
  timingSafeEqual,
} from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: object,
) => Promise<Buffer>;

/** SHA-256 in hex, one-shot (crypto.hash: no Hash object per call, ~4x cheaper for short inputs). */
export function sha256Hex(value: string | Buffer): string {
  return hash('sha256', value, 'hex');
}

export function hmacSha256Hex(key: string | Buffer, ...parts: (string | Buffer)[]): string {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

/** Constant-time string comparison (length leak only). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/**
 * Entropy for tokens comes from the operating system's CSPRNG in blocks of
 * ENTROPY_BLOCK bytes, each byte handed out once and wiped once used: one
 * getrandom call per ~128 tokens instead of one per token (a payment takes
 * two tokens, and on a VM each call cost up to ~35 us under load;
 * bench/README.md, "Token entropy"). Node's own randomUUID does the same.
 */
const ENTROPY_BLOCK = 4096;
let entropy = Buffer.alloc(0);
let entropyUsed = 0;

/** URL-safe random token with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  if (bytes > ENTROPY_BLOCK) return randomBytes(bytes).toString('base64url');
  if (entropyUsed + bytes > entropy.length) {
    entropy = randomFillSync(Buffer.allocUnsafe(ENTROPY_BLOCK));
    entropyUsed = 0;
  }
  const slice = entropy.subarray(entropyUsed, entropyUsed + bytes);
  entropyUsed += bytes;
  const token = slice.toString('base64url');
  slice.fill(0);
  return token;
}

// --- Encryption at rest (AES-256-GCM): "v1:<iv>:<tag>:<ciphertext>" base64url parts.

/**
 * The key as a KeyObject, made once per key buffer: handed a Buffer, Node
 * makes one per cipher, two thirds of what encrypting a stored idempotent
 * response cost (23 -> 7 us; bench/README.md, "Encryption keys").
 */
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObjectOf(key: Buffer): KeyObject {
  let object = keyObjects.get(key);
  if (!object) keyObjects.set(key, (object = createSecretKey(key)));
  return object;
}

export function encryptSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyObjectOf(key), iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ct.toString('base64url'),
  ].join(':');
}

export function decryptSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, ct] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || ct === undefined)
    throw new Error('Unrecognised sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', keyObjectOf(key), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}

// --- Passwords: scrypt (memory-hard), "scrypt$N$r$p$salt$hash".
const SCRYPT = { r: 8, p: 1, keylen: 64 };
/** scrypt needs 128 * N * r bytes; room for that and a little more. */
const maxmemFor = (n: number, r: number) => 2 * 128 * n * r;

/** A password's hash at cost `n` (scrypt's N; the service's is `AppConfig.passwordScryptN`). */
export async function hashPassword(password: string, n: number): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, SCRYPT.keylen, {
    N: n,
    r: SCRYPT.r,
    p: SCRYPT.p,
    maxmem: maxmemFor(n, SCRYPT.r),
  });
  return ['scrypt', n, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join(
    '$',
  );
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: maxmemFor(Number(n), Number(r)),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Whether a stored hash is cheaper than the cost in force (then it is re-hashed at login). */
export function needsRehash(stored: string, n: number): boolean {
  const [alg, cost] = stored.split('$');
  return alg !== 'scrypt' || Number(cost) < n;
}

/** A stored hash to compare against when a user does not exist (equal timing at cost `n`). */
export function dummyPasswordHash(n: number): string {
  return `scrypt$${n}$8$1$AAAAAAAAAAAAAAAAAAAAAA==$${Buffer.alloc(64).toString('base64')}`;
}
