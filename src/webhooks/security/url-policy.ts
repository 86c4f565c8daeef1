import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { Mode } from '../../common/http/request-context';

export const MAX_URL_LENGTH = 2048;

/** What makes a URL unusable at delivery time (a stored, unvalidated legacy URL). */
export type DeliveryUrlProblem = 'LIVE_REQUIRES_HTTPS' | 'URL_SCHEME_NOT_ALLOWED' | 'URL_INVALID';

function parse(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/** The host as a resolver wants it ("[::1]" -> "::1"). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Save-time rules: a LIVE URL must
 * be https whatever the deployment settings; a TEST URL's scheme must be in
 * WEBHOOK_TEST_ALLOWED_SCHEMES. No credentials in the URL.
 */
export function checkEndpointUrl(raw: string, mode: Mode, testSchemes: readonly string[]): URL {
  const url = raw.length <= MAX_URL_LENGTH ? parse(raw.trim()) : null;
  if (!url || !url.hostname) {
    throw new AppError(ErrorCode.WEBHOOK_URL_NOT_ALLOWED, 'url must be an absolute http(s) URL', [
      { field: 'url', message: 'not a valid absolute URL' },
    ]);
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (mode === 'LIVE' && scheme !== 'https') {
    throw new AppError(
      ErrorCode.WEBHOOK_URL_REQUIRES_TLS,
      'A LIVE webhook endpoint URL must use https',
      [{ field: 'url', message: 'LIVE endpoints require https' }],
    );
  }
  if (mode === 'TEST' && !testSchemes.includes(scheme)) {
    throw new AppError(
      ErrorCode.WEBHOOK_URL_NOT_ALLOWED,
      `TEST webhook URLs may use: ${testSchemes.join(', ')}. To allow ${scheme} for TEST endpoints ` +
        `(a receiver on your laptop), start Joma with WEBHOOK_TEST_ALLOWED_SCHEMES=${[...testSchemes, scheme].join(',')}`,
      [
        {
          field: 'url',
          message: `scheme ${scheme} is not allowed (WEBHOOK_TEST_ALLOWED_SCHEMES=${testSchemes.join(',')})`,
        },
      ],
    );
  }
  if (url.username || url.password) {
    throw new AppError(
      ErrorCode.WEBHOOK_URL_NOT_ALLOWED,
      'Webhook URLs may not carry credentials; verify the signature instead',
      [{ field: 'url', message: 'credentials in URL' }],
    );
  }
  return url;
}

/** Delivery-time rules for a stored URL; null when it may be attempted. */
export function deliveryUrlProblem(
  raw: string,
  mode: Mode,
  testSchemes: readonly string[],
): DeliveryUrlProblem | null {
  const url = parse(raw);
  if (!url || !url.hostname || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    return mode === 'LIVE' && url && url.protocol !== 'https:'
      ? 'LIVE_REQUIRES_HTTPS'
      : 'URL_INVALID';
  }
  if (mode === 'LIVE' && url.protocol !== 'https:') return 'LIVE_REQUIRES_HTTPS';
  if (mode === 'TEST' && !testSchemes.includes(url.protocol.replace(/:$/, '')))
    return 'URL_SCHEME_NOT_ALLOWED';
  return null;
}
