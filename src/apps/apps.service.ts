import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../audit';
import { AppCredentialsService, IssuedCredential } from '../auth';
import { Clock } from '../common/clock/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { Page } from '../common/http/envelope';
import type { PageQuery } from '../common/http/pagination';
import type { Mode } from '../common/http/request-context';
import { appTopic, ChangeFeed, ReplicaCache } from '../database/change-feed';
import { App, AppStatus } from './app.entity';
import { isRedirectAllowed, originOf, parseAllowlist, SETTINGS_BOUNDS } from './app-settings';
import { AppsRepository } from './apps.repository';

/** The app record other features receive from this service. */
export type { App } from './app.entity';
import type { UpdateAppSettingsDto } from './dto/app.dto';

/** How long one replica trusts an app's settings it read (a backstop to the change feed). */
export const APP_CACHE_MS = 10_000;

@Injectable()
export class AppsService {
  private readonly cache: ReplicaCache<App>;

  constructor(
    private readonly apps: AppsRepository,
    private readonly credentials: AppCredentialsService,
    private readonly audit: AuditService,
    private readonly changes: ChangeFeed,
    clock: Clock,
  ) {
    this.cache = new ReplicaCache(changes, APP_CACHE_MS, () => clock.nowMs());
  }

  /** Creates the app with both credential pairs; secrets are returned this once. */
  @Transactional()
  async create(name: string): Promise<{ app: App; credentials: IssuedCredential[] }> {
    const b = SETTINGS_BOUNDS;
    const app = await this.apps.insert({
      name,
      status: 'ACTIVE',
      logoUrl: null,
      refundApprovalThresholdMinor: b.refundApprovalThresholdMinor.default,
      receiptsEnabled: true,
      dunningEnabled: true,
      defaultLanguage: 'bn',
      minAmountMinor: b.minAmountMinor.default,
      maxAmountMinor: b.maxAmountMinor.default,
      paymentExpiryMinutes: b.paymentExpiryMinutes.default,
      returnUrlAllowlist: '',
      defaultSuccessUrl: null,
      defaultFailUrl: null,
      defaultCancelUrl: null,
    });
    const credentials = await this.credentials.issueAll(app.id, app);
    await this.audit.record({
      action: 'app.created',
      targetType: 'app',
      targetId: app.id,
      after: { name: app.name, status: app.status },
    });
    return { app, credentials };
  }

  async get(id: number): Promise<App> {
    const app = await this.apps.byId(id);
    if (!app) throw AppError.notFound('App');
    return app;
  }

  /**
   * The app as this replica last read it, for the hot paths that only read
   * its settings (a payment's amount bounds, redirects, expiry): at most
   * APP_CACHE_MS old, and dropped on every replica when a change of the app
   * commits (the change feed). Never for read-modify-write: that locks the row.
   */
  async settingsOf(id: number): Promise<App> {
    const app = await this.cache.get(
      String(id),
      (a) => appTopic(a.id),
      () => this.apps.byId(id),
    );
    if (!app) throw AppError.notFound('App');
    return app;
  }

  /** Names of several apps in one query. */
  async namesOf(ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.apps.names(ids);
    return new Map(rows.map((a) => [a.id, a.name]));
  }

  list(query: PageQuery, filter: { status?: AppStatus; appIds?: number[] }): Promise<Page<App>> {
    return this.apps.page(query, filter);
  }

  keysOf(appId: number) {
    return this.credentials.keysOf(appId);
  }

  /**
   * Suspends, reactivates or renames. Every replica drops its cached keys of
   * the app when the change commits (NOTIFY); this one also right after
   * commit, so the caller's very next request already sees the change.
   */
  async update(id: number, patch: { status?: AppStatus; name?: string }): Promise<App> {
    const saved = await this.updateInTx(id, patch);
    this.credentials.invalidateApp(id);
    return saved;
  }

  @Transactional()
  private async updateInTx(id: number, patch: { status?: AppStatus; name?: string }): Promise<App> {
    const app = await this.apps.lockById(id);
    if (!app) throw AppError.notFound('App');
    const before = { name: app.name, status: app.status };
    if (patch.name !== undefined) app.name = patch.name;
    if (patch.status !== undefined) app.status = patch.status;
    const saved = await this.apps.save(app);
    await this.credentials.appChanged(id, saved);
    await this.audit.record({
      action: 'app.updated',
      targetType: 'app',
      targetId: id,
      before,
      after: { name: saved.name, status: saved.status },
    });
    return saved;
  }

  /** Like `update`: every replica sees the new settings from the commit on, this one at once. */
  async updateSettings(id: number, patch: UpdateAppSettingsDto): Promise<App> {
    const saved = await this.updateSettingsInTx(id, patch);
    this.credentials.invalidateApp(id);
    return saved;
  }

  @Transactional()
  private async updateSettingsInTx(id: number, patch: UpdateAppSettingsDto): Promise<App> {
    const app = await this.apps.lockById(id);
    if (!app) throw AppError.notFound('App');
    const next = { ...app, ...stripUndefined(patch) } as App;
    if (next.minAmountMinor > next.maxAmountMinor) {
      throw AppError.validation('minAmountMinor', 'minAmountMinor must not exceed maxAmountMinor');
    }
    for (const origin of parseAllowlist(next.returnUrlAllowlist)) {
      if (!originOf(origin))
        throw AppError.validation('returnUrlAllowlist', `${origin} is not an http(s) origin`);
    }
    // The default return URL obeys the allowlist like any other (checked against the list as it will be).
    this.assertRedirectsAllowed(next, { defaultSuccessUrl: next.defaultSuccessUrl });
    const before = { ...app } as unknown as Record<string, unknown>;
    const saved = await this.apps.save(next);
    await this.changes.announce(appTopic(id));
    await this.audit.record({
      action: 'app.settings_updated',
      targetType: 'app',
      targetId: id,
      before: pick(before, Object.keys(stripUndefined(patch))),
      after: pick(saved as unknown as Record<string, unknown>, Object.keys(stripUndefined(patch))),
    });
    return saved;
  }

  /** The old pair stops working at once: here right after commit, elsewhere on the commit's NOTIFY. */
  async rotateCredentials(id: number, mode: Mode): Promise<IssuedCredential> {
    const issued = await this.rotateInTx(id, mode);
    this.credentials.invalidateApp(id);
    return issued;
  }

  @Transactional()
  private async rotateInTx(id: number, mode: Mode): Promise<IssuedCredential> {
    await this.get(id);
    const issued = await this.credentials.rotate(id, mode);
    // Which pair changed, never the secret.
    await this.audit.record({
      action: 'app.credentials_rotated',
      targetType: 'app',
      targetId: id,
      after: { mode, apiKey: issued.apiKey },
    });
    return issued;
  }

  /**
   * Refuses (400 REDIRECT_URL_NOT_ALLOWED) a success/fail/cancel URL the
   * app's returnUrlAllowlist does not allow (an empty list: any https URL).
   */
  assertRedirectsAllowed(app: App, urls: Record<string, string | null | undefined>): void {
    for (const [field, url] of Object.entries(urls)) {
      if (!url || isRedirectAllowed(url, app.returnUrlAllowlist)) continue;
      throw new AppError(
        ErrorCode.REDIRECT_URL_NOT_ALLOWED,
        `${field} is not allowed by the app's returnUrlAllowlist`,
        [
          {
            field,
            message: 'origin not in returnUrlAllowlist (or not https when the list is empty)',
          },
        ],
      );
    }
  }

  static assertMode(mode: string): Mode {
    if (mode !== 'TEST' && mode !== 'LIVE') {
      throw new AppError(ErrorCode.VALIDATION_FAILED, 'Validation failed', [
        { field: 'mode', message: 'mode must be TEST or LIVE' },
      ]);
    }
    return mode;
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}
