import { AppError } from '../../common/errors/app-error';
import { checkEndpointUrl, deliveryUrlProblem } from './url-policy';

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof AppError ? err.code : 'OTHER';
  }
}

describe('webhook URL policy', () => {
  it('LIVE requires https whatever the allowlist', () => {
    expect(codeOf(() => checkEndpointUrl('http://a.example.com/', 'LIVE', ['http', 'https']))).toBe(
      'WEBHOOK_URL_REQUIRES_TLS',
    );
    expect(codeOf(() => checkEndpointUrl('ftp://a.example.com/', 'LIVE', ['http', 'https']))).toBe(
      'WEBHOOK_URL_REQUIRES_TLS',
    );
    expect(checkEndpointUrl('https://a.example.com/x?y=1', 'LIVE', ['https']).href).toBe(
      'https://a.example.com/x?y=1',
    );
  });

  it('TEST follows the deployment allowlist', () => {
    expect(codeOf(() => checkEndpointUrl('http://a.example.com/', 'TEST', ['https']))).toBe(
      'WEBHOOK_URL_NOT_ALLOWED',
    );
    expect(
      codeOf(() => checkEndpointUrl('http://a.example.com/', 'TEST', ['http', 'https'])),
    ).toBeNull();
  });

  it('refuses unparsable URLs and embedded credentials', () => {
    for (const url of [
      '',
      'a.example.com/hook',
      'https://',
      'https://u:p@a.example.com/',
      `https://a.example.com/${'x'.repeat(2100)}`,
    ]) {
      expect(codeOf(() => checkEndpointUrl(url, 'TEST', ['https']))).toBe(
        'WEBHOOK_URL_NOT_ALLOWED',
      );
    }
  });

  it('at delivery: LIVE http is LIVE_REQUIRES_HTTPS; a TEST scheme outside the allowlist is URL_SCHEME_NOT_ALLOWED', () => {
    expect(deliveryUrlProblem('http://legacy.example.com/', 'LIVE', ['http', 'https'])).toBe(
      'LIVE_REQUIRES_HTTPS',
    );
    expect(deliveryUrlProblem('https://legacy.example.com/', 'LIVE', ['https'])).toBeNull();
    expect(deliveryUrlProblem('http://legacy.example.com/', 'TEST', ['https'])).toBe(
      'URL_SCHEME_NOT_ALLOWED',
    );
    expect(deliveryUrlProblem('http://legacy.example.com/', 'TEST', ['http'])).toBeNull();
    expect(deliveryUrlProblem('not a url', 'TEST', ['https'])).toBe('URL_INVALID');
  });
});
