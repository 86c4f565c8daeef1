import { connectionError } from './http-sender';

/** Decisions 14 as amended: a recorded connection error names the host, never the address it resolved to. */
describe('connectionError', () => {
  it('a connection error names the host and the code, never the address', () => {
    expect(connectionError('ECONNREFUSED', 'hooks.example.com')).toBe(
      'ECONNREFUSED: connection refused by hooks.example.com',
    );
    expect(connectionError('ECONNRESET', 'hooks.example.com')).toBe(
      'ECONNRESET: connection reset by hooks.example.com',
    );
    expect(connectionError('EHOSTUNREACH', 'hooks.example.com')).toBe(
      'EHOSTUNREACH: hooks.example.com is unreachable',
    );
    expect(connectionError('CERT_HAS_EXPIRED', 'hooks.example.com')).toBe(
      'CERT_HAS_EXPIRED: TLS handshake with hooks.example.com failed',
    );
    expect(connectionError(undefined, 'hooks.example.com')).toBe(
      'NETWORK_ERROR: connection to hooks.example.com failed',
    );
  });
});
