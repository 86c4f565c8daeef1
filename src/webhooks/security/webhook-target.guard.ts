import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';

import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { JomaRequest, Mode } from '../../common/http/request-context';
import { AppConfig } from '../../config/app-config';
import { resolveTarget, TargetRefused, withDeadline } from './target-resolver';
import { hostOf } from './url-policy';

/**
 * The SSRF check of a webhook URL being saved (create, update): resolves the
 * host and refuses private, loopback, link-local or reserved targets. It runs
 * as a guard, before the idempotency interceptor opens a transaction, so a
 * DNS server that is slow or never answers holds no database connection; the
 * lookup is bounded like a delivery's. (Delivery re-checks every attempt.)
 */
@Injectable()
export class WebhookTargetGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (this.config.webhookAllowPrivateTargets) return true;
    const req = ctx.switchToHttp().getRequest<JomaRequest>();
    const raw = (req.body as { url?: unknown } | undefined)?.url;
    let url: URL;
    try {
      url = new URL(String(raw));
    } catch {
      return true; // not a URL: validation and the URL rules answer it
    }
    if (typeof raw !== 'string' || !url.hostname) return true;
    try {
      await withDeadline(
        resolveTarget(hostOf(url), {
          allowPrivate: false,
          dnsServers: this.config.webhookDnsServers,
        }),
        this.config.webhookTimeoutMs,
        () => new TargetRefused('DNS_FAILED', `${hostOf(url)} did not resolve in time`),
      );
    } catch (err) {
      if (!(err instanceof TargetRefused)) throw err;
      const scheme = url.protocol.replace(/:$/, '');
      throw refusedTarget(hostOf(url), err, req.principalApp?.mode ?? 'LIVE', {
        scheme,
        allowed: this.config.webhookTestAllowedSchemes,
      });
    }
    return true;
  }
}

/**
 * Why a webhook URL's host is refused, without saying which private address
 * it resolves to; in TEST it names every setting a local receiver needs at
 * once: WEBHOOK_ALLOW_PRIVATE_TARGETS, and WEBHOOK_TEST_ALLOWED_SCHEMES too
 * when the URL's scheme (http, as local receivers usually are) is not
 * allowed either, so one restart is enough.
 */
function refusedTarget(
  host: string,
  err: TargetRefused,
  mode: Mode,
  schemes: { scheme: string; allowed: readonly string[] },
): AppError {
  const dns = err.code === 'DNS_FAILED';
  const schemeToo = /^https?$/.test(schemes.scheme) && !schemes.allowed.includes(schemes.scheme);
  const reason = dns
    ? `${host} does not resolve`
    : `${host} is a private, loopback, link-local or reserved address` +
      (mode === 'TEST' && schemeToo
        ? `, and TEST webhook URLs may use: ${schemes.allowed.join(', ')}`
        : '');
  const settings = [
    'WEBHOOK_ALLOW_PRIVATE_TARGETS=true',
    ...(schemeToo
      ? [`WEBHOOK_TEST_ALLOWED_SCHEMES=${[...schemes.allowed, schemes.scheme].join(',')}`]
      : []),
  ];
  const hint =
    !dns && mode === 'TEST'
      ? '. To deliver TEST events to a receiver on your own machine or network, start Joma with ' +
        `${settings.join(' ')} (development only; see docs/webhooks.md)`
      : '';
  return new AppError(
    ErrorCode.WEBHOOK_URL_NOT_ALLOWED,
    `Webhook URL not allowed: ${reason}${hint}`,
    [
      {
        field: 'url',
        message: dns
          ? 'host does not resolve'
          : 'private, loopback, link-local or reserved address',
      },
    ],
  );
}
