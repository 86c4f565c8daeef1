import { createHash, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { publicKeyOf, verifyNagadSignature } from '../../src/gateways/nagad/nagad-crypto';
import { fixture, fixturesDir } from '../../src/simulators/gateway-shapes';

const key = (name: string) =>
  JSON.parse(readFileSync(join(fixturesDir(), 'nagad', 'keys', `${name}.json`), 'utf8')) as {
    sha256: string;
    publicKey: string;
  };
const body = (name: string) =>
  fixture('nagad', name) as unknown as {
    request: { body: Record<string, unknown> };
    response: { body: Record<string, unknown> };
  };
const spkiSha256 = (base64: string) =>
  createHash('sha256')
    .update(
      createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' }).export({
        format: 'der',
        type: 'spki',
      }),
    )
    .digest('hex');

/**
 * Real-world check of the adapter's crypto: the 2024 sandbox capture
 * (muhibbin-munna/nagad_pg_php readme.md) against the public keys of
 * Nagad's own PHP sample, with the adapter's own verification code.
 */
describe("Nagad's 2024 sandbox capture verifies with the adapter's code", () => {
  const nagadKey = key('nagad-sandbox-public-key');
  const merchantKey = key('sandbox-merchant-public-key');

  it('the stored keys are the ones the fixtures README names (SHA-256 of the DER SPKI)', () => {
    expect(spkiSha256(nagadKey.publicKey)).toBe(
      '4d71d5b9711832f024f86344826a18e9deeaf3e6e2ab3c417a0ec522cbbb8b59',
    );
    expect(nagadKey.sha256).toBe(spkiSha256(nagadKey.publicKey));
    expect(spkiSha256(merchantKey.publicKey)).toBe(
      'ad1628d583b564b4ff4a7f0da578aeb62cfc7129d4f841615abd1bb62d7949bf',
    );
  });

  it("initialize's ANSWER: Nagad's signature verifies over the published plaintext, under Nagad's sandbox public key", () => {
    const plain = Buffer.from(
      JSON.stringify(body('initialize-sensitive-data.response-sandbox-2024').response.body),
    );
    const { signature } = body('initialize.success-sandbox-2024').response.body as {
      signature: string;
    };
    const nagad = publicKeyOf(nagadKey.publicKey);
    expect(verifyNagadSignature(plain, signature, nagad)).toBe(true);
    // One byte off, another key, or a PEM-wrapped copy of the same key.
    const changed = Buffer.from(plain);
    changed[changed.length - 3] ^= 1;
    expect(verifyNagadSignature(changed, signature, nagad)).toBe(false);
    expect(verifyNagadSignature(plain, signature, publicKeyOf(merchantKey.publicKey))).toBe(false);
    const pem = `-----BEGIN PUBLIC KEY-----\n${nagadKey.publicKey.replace(/(.{64})/g, '$1\n')}\n-----END PUBLIC KEY-----`;
    expect(verifyNagadSignature(plain, signature, publicKeyOf(pem))).toBe(true);
  });

  it.each([
    ['initialize.success-sandbox-2024', 'initialize-sensitive-data.request-sandbox-2024'],
    ['complete.success-sandbox-2024', 'complete-sensitive-data.request-sandbox-2024'],
  ])(
    "%s's REQUEST: the merchant's signature verifies over %s under the sandbox merchant public key",
    (wire, plaintext) => {
      const plain = Buffer.from(JSON.stringify(body(plaintext).request.body));
      const { signature } = body(wire).request.body as { signature: string };
      expect(verifyNagadSignature(plain, signature, publicKeyOf(merchantKey.publicKey))).toBe(true);
      expect(verifyNagadSignature(plain, signature, publicKeyOf(nagadKey.publicKey))).toBe(false);
    },
  );
});
