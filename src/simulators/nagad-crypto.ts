import {
  constants,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  privateDecrypt,
  publicEncrypt,
  sign,
  verify,
} from 'node:crypto';

/**
 * The Nagad simulator's crypto (test/fixtures/gateways/README.md, "Crypto"):
 * `sensitiveData` is base64 of the compact JSON plaintext RSA-encrypted with
 * PKCS#1 v1.5 padding for the RECIPIENT's public key, `signature` base64 of
 * SHA256withRSA (RSASSA-PKCS1-v1_5) over the same plaintext bytes with the
 * SENDER's private key. Keys travel as bare base64 DER (PKCS#8 private, SPKI
 * public), as Nagad exchanges them. The simulator's own: the adapter has its
 * crypto in src/gateways/nagad, so that neither can hide the other's mistake.
 *
 * PKCS#1 v1.5 decryption: Node 24 (OpenSSL 3.5) performs it with implicit
 * rejection (the Marvin-attack countermeasure): a ciphertext made for another
 * key does not throw but yields pseudo-random bytes. A decryption therefore
 * counts as failed when it throws OR when the bytes are not a UTF-8 JSON
 * object; no `--security-revert` or other switch is used.
 */

/** An RSA key pair as bare base64 DER: `privateKey` PKCS#8 (`MIIEv…`), `publicKey` SPKI (`MIIBI…`). */
export interface NagadKeyPair {
  privateKey: string;
  publicKey: string;
}

/** A fresh RSA-2048 key pair. */
export function newKeyPair(): NagadKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  });
  return { privateKey: privateKey.toString('base64'), publicKey: publicKey.toString('base64') };
}

export function privateKeyOf(base64: string): KeyObject {
  return createPrivateKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'pkcs8' });
}

export function publicKeyOf(base64: string): KeyObject {
  return createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
}

/** `{sensitiveData, signature}` of `plaintext`: for `recipient`'s eyes, signed by `sender`. */
export function seal(
  plaintext: string,
  recipient: KeyObject,
  sender: KeyObject,
): { sensitiveData: string; signature: string } {
  const bytes = Buffer.from(plaintext, 'utf8');
  return {
    sensitiveData: publicEncrypt(
      { key: recipient, padding: constants.RSA_PKCS1_PADDING },
      bytes,
    ).toString('base64'),
    signature: sign('sha256', bytes, sender).toString('base64'),
  };
}

/** What opening a request's `sensitiveData` and `signature` gave. */
export type Opened =
  | { ok: true; plaintext: Record<string, unknown>; bytes: Buffer }
  | { ok: false; failed: 'decryption' | 'signature' };

/**
 * Decrypts `sensitiveData` with `recipient`'s private key and checks
 * `signature` over the decrypted bytes as received (never a re-serialisation)
 * with `sender`'s public key.
 */
export function open(
  sensitiveData: unknown,
  signature: unknown,
  recipient: KeyObject,
  sender: KeyObject,
): Opened {
  let bytes: Buffer;
  let plaintext: unknown;
  try {
    if (typeof sensitiveData !== 'string' || !sensitiveData) throw new Error('no sensitiveData');
    bytes = privateDecrypt(
      { key: recipient, padding: constants.RSA_PKCS1_PADDING },
      Buffer.from(sensitiveData, 'base64'),
    );
    plaintext = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, failed: 'decryption' };
  }
  if (typeof plaintext !== 'object' || plaintext === null || Array.isArray(plaintext))
    return { ok: false, failed: 'decryption' };
  let signed = false;
  try {
    signed =
      typeof signature === 'string' &&
      verify('sha256', bytes, sender, Buffer.from(signature, 'base64'));
  } catch {
    signed = false;
  }
  if (!signed) return { ok: false, failed: 'signature' };
  return { ok: true, plaintext: plaintext as Record<string, unknown>, bytes };
}
