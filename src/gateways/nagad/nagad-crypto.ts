import {
  constants,
  createPrivateKey,
  createPublicKey,
  KeyObject,
  privateDecrypt,
  publicEncrypt,
  sign,
  verify,
} from 'node:crypto';

/**
 * Nagad's crypto (test/fixtures/gateways/README.md, "Crypto", checked
 * against the 2024 sandbox capture): `sensitiveData` is base64 of the
 * compact JSON plaintext encrypted (RSA, PKCS#1 v1.5 padding) with the
 * RECIPIENT's public key; `signature` is base64 of SHA256withRSA
 * (RSASSA-PKCS1-v1_5) over the same plaintext bytes with the SENDER's
 * private key. Keys are exchanged as bare base64 (PKCS#8 private, SPKI
 * public) or wrapped in PEM lines, whatever their label says.
 */

/** Why an answer could not be opened; never with a key or the plaintext in it. */
export class NagadCryptoError extends Error {}

/** The DER bytes of a key given as bare base64 or PEM (any label, any line breaks). */
function derOf(text: string): Buffer {
  const body = text
    .replace(/-----(BEGIN|END)[A-Z0-9 ]*-----/g, '')
    .replace(/\\n/g, '')
    .replace(/\s+/g, '');
  if (!body || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw new NagadCryptoError('not base64');
  return Buffer.from(body, 'base64');
}

function rsa(key: KeyObject): KeyObject {
  if (key.asymmetricKeyType !== 'rsa') throw new NagadCryptoError('not an RSA key');
  return key;
}

/** The merchant's private key: PKCS#8 (Nagad's form) or PKCS#1. Throws NagadCryptoError. */
export function privateKeyOf(text: string): KeyObject {
  const der = derOf(text);
  for (const type of ['pkcs8', 'pkcs1'] as const) {
    try {
      return rsa(createPrivateKey({ key: der, format: 'der', type }));
    } catch (err) {
      if (err instanceof NagadCryptoError) throw err;
    }
  }
  throw new NagadCryptoError('not a PKCS#8 or PKCS#1 private key');
}

/** Nagad's public key: SPKI (Nagad's form) or PKCS#1. Throws NagadCryptoError. */
export function publicKeyOf(text: string): KeyObject {
  const der = derOf(text);
  // Node derives a public key from a private one: a private key here is a mistake, refused.
  if (parsesAsPrivate(der)) throw new NagadCryptoError('a private key, not a public one');
  for (const type of ['spki', 'pkcs1'] as const) {
    try {
      return rsa(createPublicKey({ key: der, format: 'der', type }));
    } catch (err) {
      if (err instanceof NagadCryptoError) throw err;
    }
  }
  throw new NagadCryptoError('not an SPKI or PKCS#1 public key');
}

function parsesAsPrivate(der: Buffer): boolean {
  for (const type of ['pkcs8', 'pkcs1'] as const) {
    try {
      createPrivateKey({ key: der, format: 'der', type });
      return true;
    } catch {
      // not this form
    }
  }
  return false;
}

/** `sensitiveData` and `signature` of a request: encrypted for Nagad, signed by the merchant. */
export function sealRequest(
  plaintext: string,
  nagadPublic: KeyObject,
  merchantPrivate: KeyObject,
): { sensitiveData: string; signature: string } {
  const bytes = Buffer.from(plaintext, 'utf8');
  return {
    sensitiveData: publicEncrypt(
      { key: nagadPublic, padding: constants.RSA_PKCS1_PADDING },
      bytes,
    ).toString('base64'),
    signature: sign('sha256', bytes, merchantPrivate).toString('base64'),
  };
}

/**
 * The plaintext of an answer's `sensitiveData`, decrypted with the merchant's
 * private key, believed only when Nagad's signature verifies over exactly
 * those bytes (never a re-serialisation). Anything else throws.
 */
export function openAnswer(
  sensitiveData: unknown,
  signature: unknown,
  merchantPrivate: KeyObject,
  nagadPublic: KeyObject,
): Buffer {
  if (typeof sensitiveData !== 'string' || typeof signature !== 'string')
    throw new NagadCryptoError('an answer without sensitiveData and signature');
  let plain: Buffer;
  try {
    plain = privateDecrypt(
      { key: merchantPrivate, padding: constants.RSA_PKCS1_PADDING },
      Buffer.from(sensitiveData, 'base64'),
    );
  } catch {
    throw new NagadCryptoError('an answer that does not decrypt with the merchant key');
  }
  if (!verifyNagadSignature(plain, signature, nagadPublic))
    throw new NagadCryptoError("an answer whose signature does not verify with Nagad's key");
  return plain;
}

/** Whether `signature` (base64) is SHA256withRSA over `bytes` by the holder of `publicKey`. */
export function verifyNagadSignature(
  bytes: Buffer,
  signature: string,
  publicKey: KeyObject,
): boolean {
  try {
    return verify('sha256', bytes, publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
