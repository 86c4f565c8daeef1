import { randomBytes } from 'node:crypto';

import { PASSWORD_SCRYPT_N } from '../../config/app-config';
import {
  decryptSecret,
  dummyPasswordHash,
  encryptSecret,
  hashPassword,
  hmacSha256Hex,
  needsRehash,
  randomToken,
  safeEqual,
  sha256Hex,
  verifyPassword,
} from './crypto';

describe('encryption at rest (AES-256-GCM)', () => {
  const key = randomBytes(32);

  it('round-trips, with a fresh IV each time', () => {
    const a = encryptSecret(key, 'whsec_ট্যাকা secret');
    const b = encryptSecret(key, 'whsec_ট্যাকা secret');
    expect(a).not.toBe(b);
    expect(a).not.toContain('whsec');
    expect(a.split(':')[0]).toBe('v1');
    expect(decryptSecret(key, a)).toBe('whsec_ট্যাকা secret');
    expect(decryptSecret(key, b)).toBe('whsec_ট্যাকা secret');
    expect(decryptSecret(key, encryptSecret(key, ''))).toBe('');
  });

  it('detects a tampered ciphertext, tag or IV', () => {
    const sealed = encryptSecret(key, 'sk_live_abcdef');
    const [v, iv, tag, ct] = sealed.split(':');
    const flip = (s: string) => {
      const buf = Buffer.from(s, 'base64url');
      buf[0] ^= 1;
      return buf.toString('base64url');
    };
    expect(() => decryptSecret(key, [v, iv, tag, flip(ct)].join(':'))).toThrow();
    expect(() => decryptSecret(key, [v, iv, flip(tag), ct].join(':'))).toThrow();
    expect(() => decryptSecret(key, [v, flip(iv), tag, ct].join(':'))).toThrow();
  });

  it('refuses the wrong key and unknown formats', () => {
    const sealed = encryptSecret(key, 'x');
    expect(() => decryptSecret(randomBytes(32), sealed)).toThrow();
    expect(() => decryptSecret(key, sealed.replace(/^v1/, 'v2'))).toThrow(/Unrecognised/);
    expect(() => decryptSecret(key, 'garbage')).toThrow(/Unrecognised/);
  });
});

describe('passwords (scrypt)', () => {
  it('hashes with a random salt and verifies only the right password', async () => {
    const h1 = await hashPassword('correct horse battery staple', PASSWORD_SCRYPT_N);
    const h2 = await hashPassword('correct horse battery staple', PASSWORD_SCRYPT_N);
    // The service's default cost is OWASP's current guidance: N = 2^17, r = 8, p = 1.
    expect(h1).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(h1).not.toBe(h2);
    expect(h1).not.toContain('correct horse');
    await expect(verifyPassword('correct horse battery staple', h1)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery staple', h2)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapl', h1)).resolves.toBe(false);
    await expect(verifyPassword('', h1)).resolves.toBe(false);
  });

  it('verifies nothing against the dummy hash or a malformed one', async () => {
    await expect(verifyPassword('', dummyPasswordHash(16384))).resolves.toBe(false);
    await expect(verifyPassword('anything', dummyPasswordHash(16384))).resolves.toBe(false);
    await expect(verifyPassword('x', 'bcrypt$whatever')).resolves.toBe(false);
    await expect(verifyPassword('x', '')).resolves.toBe(false);
  });

  it("verifies hashes of any cost it made; a cheaper one than today's needs re-hashing", async () => {
    const old = await hashPassword('an older password', 16384);
    expect(old).toMatch(/^scrypt\$16384\$/);
    await expect(verifyPassword('an older password', old)).resolves.toBe(true);
    expect(needsRehash(old, 131072)).toBe(true);
    expect(needsRehash(old, 16384)).toBe(false);
    expect(needsRehash(await hashPassword('x', 131072), 131072)).toBe(false);
  });
});

describe('safeEqual', () => {
  it('compares strings exactly', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('', 'a')).toBe(false);
    expect(safeEqual('ট', 'ট')).toBe(true);
  });
});

describe('hashes and tokens', () => {
  it('sha256Hex and hmacSha256Hex match known vectors', () => {
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    // RFC 4231 test case 2.
    expect(hmacSha256Hex('Jefe', 'what do ya want ', 'for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('randomToken is URL-safe with the requested entropy', () => {
    const t = randomToken(32);
    expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken(32)).not.toBe(t);
    expect(randomToken(18)).toHaveLength(24);
  });

  it('randomToken never hands out the same entropy twice, across its 4 KiB blocks and beyond them', () => {
    // 1,000 tokens of 32 bytes span eight blocks; 7-byte ones end blocks unevenly.
    const tokens = [
      ...Array.from({ length: 1000 }, () => randomToken(32)),
      ...Array.from({ length: 700 }, () => randomToken(7)),
      randomToken(5000),
      randomToken(5000),
    ];
    expect(new Set(tokens).size).toBe(tokens.length);
    // No 8-byte window of one token appears in another (slices never overlap).
    const windows = new Set<string>();
    for (const t of tokens.slice(0, 1000)) {
      const bytes = Buffer.from(t, 'base64url');
      for (let i = 0; i + 8 <= bytes.length; i += 8) {
        const w = bytes.subarray(i, i + 8).toString('hex');
        expect(windows.has(w)).toBe(false);
        windows.add(w);
      }
    }
    expect(Buffer.from(tokens[tokens.length - 1], 'base64url')).toHaveLength(5000);
  });
});
