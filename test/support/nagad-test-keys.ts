import {
  constants,
  generateKeyPairSync,
  KeyObject,
  privateDecrypt,
  publicEncrypt,
  sign,
  verify,
} from 'node:crypto';

import { fixturesOf, GatewayFixture } from '../../src/simulators/gateway-shapes';

/** How the next encrypted answer is spoiled (none: as Nagad would send it). */
export type Tamper = 'signature' | 'other-key' | 'garbage' | 'not-json' | null;

/**
 * Keys a test plays Nagad and a merchant with. The fixtures' encrypted
 * answers are placeholders (or sealed for keys nobody has), so answers are
 * sealed here from the published PLAINTEXT fixtures, byte for byte: the
 * `*-sensitive-data.response-*` body as compact JSON, in its member order,
 * encrypted for the merchant's public key and signed with Nagad's private
 * key, as Nagad does (test/fixtures/gateways/README.md, "Crypto").
 */
export class NagadTestKeys {
  readonly nagad = generateKeyPairSync('rsa', { modulusLength: 2048 });
  readonly merchant = generateKeyPairSync('rsa', { modulusLength: 2048 });
  /** Someone else's pair: an answer sealed or signed with it is not Nagad's for this merchant. */
  readonly stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
  tamper: Tamper = null;

  /** The credentials an app sets: keys as Nagad hands them out (bare base64 PKCS#8 / SPKI). */
  credentials(merchantId: string, merchantNumber = '01700000000'): Record<string, string> {
    return {
      merchantId,
      merchantNumber,
      merchantPrivateKey: bare(this.merchant.privateKey, 'pkcs8'),
      nagadPublicKey: bare(this.nagad.publicKey, 'spki'),
    };
  }

  /** The replayer hook: initialize success answers sealed from their published plaintext. */
  readonly answer = (name: string, f: GatewayFixture): unknown => {
    if (!name.startsWith('initialize.success-')) return null;
    const plain = Buffer.from(JSON.stringify(plaintextFor(name)), 'utf8');
    return this.seal(plain, f);
  };

  private seal(plain: Buffer, f: GatewayFixture): unknown {
    if (this.tamper === 'garbage') return 'Service Unavailable <html>';
    const bytes = this.tamper === 'not-json' ? Buffer.from('not json at all') : plain;
    const recipient =
      this.tamper === 'other-key' ? this.stranger.publicKey : this.merchant.publicKey;
    const signer = this.tamper === 'signature' ? this.stranger.privateKey : this.nagad.privateKey;
    return {
      ...(f.response?.body as Record<string, unknown>),
      sensitiveData: publicEncrypt(
        { key: recipient, padding: constants.RSA_PKCS1_PADDING },
        bytes,
      ).toString('base64'),
      signature: sign('sha256', bytes, signer).toString('base64'),
    };
  }

  /**
   * What a request carried, as Nagad reads it: `sensitiveData` decrypted
   * with Nagad's private key (the raw bytes and the JSON), and whether the
   * signature verifies with the merchant's public key over those bytes.
   */
  openRequest(body: { sensitiveData: string; signature: string }): {
    raw: string;
    plain: Record<string, unknown>;
    signed: boolean;
  } {
    const raw = privateDecrypt(
      { key: this.nagad.privateKey, padding: constants.RSA_PKCS1_PADDING },
      Buffer.from(body.sensitiveData, 'base64'),
    );
    return {
      raw: raw.toString('utf8'),
      plain: JSON.parse(raw.toString('utf8')) as Record<string, unknown>,
      signed: verify('sha256', raw, this.merchant.publicKey, Buffer.from(body.signature, 'base64')),
    };
  }
}

/** A key as bare base64 DER (Nagad's form). */
export function bare(key: KeyObject, type: 'pkcs8' | 'spki'): string {
  return key.export({ format: 'der', type }).toString('base64');
}

/**
 * The published plaintext an initialize answer variant carries:
 * `initialize.success-<variant>` pairs with the
 * `initialize-sensitive-data.response-<variant>...` fixture.
 */
export function plaintextFor(initializeName: string): Record<string, unknown> {
  const variant = initializeName.replace(/^initialize\.success-/, '');
  const match = [...fixturesOf('nagad').entries()].find(([n]) =>
    n.startsWith(`initialize-sensitive-data.response-${variant}`),
  );
  if (!match) throw new Error(`no plaintext fixture for ${initializeName}`);
  return match[1].response!.body as Record<string, unknown>;
}
