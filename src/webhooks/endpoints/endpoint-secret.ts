import { decryptSecret, encryptSecret, randomToken } from '../../common/crypto/crypto';

/** A new signing secret: `whsec_` + 32 random bytes, base64url. */
export function newEndpointSecret(): string {
  return `whsec_${randomToken(32)}`;
}

export function sealSecret(key: Buffer, secret: string): string {
  return encryptSecret(key, secret);
}

export function openSecret(key: Buffer, sealed: string): string {
  return decryptSecret(key, sealed);
}
