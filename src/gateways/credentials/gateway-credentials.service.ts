import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../../audit';
import { Clock } from '../../common/clock/clock';
import { decryptSecret, encryptSecret } from '../../common/crypto/crypto';
import { DomainEventBus } from '../../common/domain-events';
import { AppError } from '../../common/errors/app-error';
import { AppConfig } from '../../config/app-config';
import { appTopic, ChangeFeed, ReplicaCache } from '../../database/change-feed';
import { isForeignKeyViolation } from '../../database/transaction';
import type { GatewayContext, GatewayMode } from '../payment-gateway.types';
import { GatewayCredentialsRepository } from './gateway-credentials.repository';
import { GatewayCredentialsRemoved } from './gateway-credentials-events';

/** How long one replica trusts the list of an app's configured gateways (a backstop to the change feed). */
const CONFIGURED_CACHE_MS = 10_000;
/**
 * A success is written at most once per this long per app, mode and gateway
 * (the stored time is at most this stale), unless an error was noted since
 * the last one: then at once, so a current success is never shown older
 * than a stale error.
 */
export const SUCCESS_NOTE_EVERY_MS = 60_000;

/** Token calls back off after a failure: this long at first, doubling per failure in a row (decisions 19). */
export const TOKEN_BACKOFF_BASE_MS = 1_000;
export const TOKEN_BACKOFF_MAX_MS = 60_000;

type ConfiguredGateway = { gateway: string; isDefault: boolean };

/**
 * Apps' credentials for real gateways, sealed with ENCRYPTION_KEY at rest,
 * opened only to hand them to the adapter for one call. Never returned by
 * the API, never logged.
 */
@Injectable()
export class GatewayCredentialsService {
  /** Which gateways each app has set up per mode: read by every new payment. */
  private readonly configuredCache: ReplicaCache<ConfiguredGateway[]>;

  constructor(
    private readonly credentials: GatewayCredentialsRepository,
    private readonly config: AppConfig,
    private readonly changes: ChangeFeed,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly events: DomainEventBus,
  ) {
    this.configuredCache = new ReplicaCache(changes, CONFIGURED_CACHE_MS, () => clock.nowMs());
  }

  /**
   * Stores (replaces) the app's credentials for a gateway in a mode;
   * optionally its default there. Every replica sees the change from the
   * commit on (this one at once).
   */
  async set(
    appId: number,
    mode: GatewayMode,
    gateway: string,
    fields: Record<string, string>,
    makeDefault: boolean,
  ): Promise<void> {
    await this.setInTx(appId, mode, gateway, fields, makeDefault);
    this.changes.touch(appTopic(appId));
  }

  @Transactional()
  private async setInTx(
    appId: number,
    mode: GatewayMode,
    gateway: string,
    fields: Record<string, string>,
    makeDefault: boolean,
  ): Promise<void> {
    try {
      await this.credentials.upsert(
        appId,
        mode,
        gateway,
        encryptSecret(this.config.encryptionKey, JSON.stringify(fields)),
      );
    } catch (err) {
      if (isForeignKeyViolation(err)) throw AppError.notFound('App');
      throw err;
    }
    if (makeDefault) await this.credentials.makeDefault(appId, mode, gateway);
    // A token granted with the old credentials is not used with the new ones.
    await this.credentials.discardToken(appId, mode, gateway);
    // In the change's own transaction: the change and its audit entry commit together.
    await this.audit.record({
      action: 'app.gateway_credentials_set',
      targetType: 'app',
      targetId: appId,
      // Which fields, never their values.
      after: { mode, gateway, fields: Object.keys(fields), default: makeDefault },
    });
    await this.changes.announce(appTopic(appId));
  }

  /** What an adapter call needs: the app, the mode and its credentials for the gateway. */
  async contextFor(
    scope: { appId: number; mode: GatewayMode },
    gateway: string,
  ): Promise<GatewayContext> {
    const sealed = await this.credentials.sealedFor(scope.appId, scope.mode, gateway);
    return {
      appId: scope.appId,
      mode: scope.mode,
      credentials: sealed
        ? (JSON.parse(decryptSecret(this.config.encryptionKey, sealed)) as Record<string, string>)
        : null,
    };
  }

  /** The gateways the app has credentials for in the mode (cached per replica, see `set`). */
  async configured(appId: number, mode: GatewayMode): Promise<ConfiguredGateway[]> {
    const rows = await this.configuredCache.get(
      `${appId}:${mode}`,
      () => appTopic(appId),
      () => this.credentials.configured(appId, mode),
    );
    return rows ?? [];
  }

  /**
   * The app's stored access token for a gateway (opened), if it is still
   * good for `marginMs`. Shared by replicas through the database.
   */
  async token<T>(
    ctx: GatewayContext,
    gateway: string,
    nowMs: number,
    marginMs: number,
  ): Promise<T | null> {
    const row = await this.credentials.token(ctx.appId, ctx.mode, gateway);
    if (!row || row.expiresAt.getTime() - marginMs <= nowMs) return null;
    return JSON.parse(decryptSecret(this.config.encryptionKey, row.sealed)) as T;
  }

  /** Stores a token the gateway granted (no transaction: the last writer wins, both are valid). */
  async saveToken(
    ctx: GatewayContext,
    gateway: string,
    token: unknown,
    expiresAt: Date,
  ): Promise<void> {
    await this.credentials.saveToken(
      ctx.appId,
      ctx.mode,
      gateway,
      encryptSecret(this.config.encryptionKey, JSON.stringify(token)),
      expiresAt,
    );
  }

  /** The last stored token, however old (its refresh token may still work). */
  async anyToken<T>(ctx: GatewayContext, gateway: string): Promise<T | null> {
    const row = await this.credentials.token(ctx.appId, ctx.mode, gateway);
    return row ? (JSON.parse(decryptSecret(this.config.encryptionKey, row.sealed)) as T) : null;
  }

  /** The token lease (one grant at a time per app and mode, across replicas): true when taken. */
  leaseToken(ctx: GatewayContext, gateway: string, nowMs: number, ms: number): Promise<boolean> {
    return this.credentials.leaseToken(
      ctx.appId,
      ctx.mode,
      gateway,
      new Date(nowMs),
      new Date(nowMs + ms),
    );
  }

  /** Until when token calls back off for the app and mode, or null when they may be made. */
  async tokenBackoff(ctx: GatewayContext, gateway: string, nowMs: number): Promise<Date | null> {
    const until = await this.credentials.tokenBackoff(ctx.appId, ctx.mode, gateway);
    return until && until.getTime() > nowMs ? until : null;
  }

  /**
   * A token call failed (timeout, 5xx, refusal): token calls of the app and
   * mode back off, 1 s doubling up to 60 s, across replicas (decisions
   * section 19). Returns until when. A stored token resets it.
   */
  noteTokenFailure(ctx: GatewayContext, gateway: string, nowMs: number): Promise<Date> {
    return this.credentials.noteTokenFailure(
      ctx.appId,
      ctx.mode,
      gateway,
      new Date(nowMs),
      TOKEN_BACKOFF_BASE_MS,
      TOKEN_BACKOFF_MAX_MS,
    );
  }

  releaseTokenLease(ctx: GatewayContext, gateway: string): Promise<void> {
    return this.credentials.releaseTokenLease(ctx.appId, ctx.mode, gateway);
  }

  /**
   * Forgets the token the gateway refused, if it is still the stored one: a
   * refusal that arrives after another caller stored a fresh token leaves
   * that token alone (or every late 401 would cost one more grant).
   */
  async discardToken(
    ctx: GatewayContext,
    gateway: string,
    refused: (token: unknown) => boolean,
  ): Promise<void> {
    const row = await this.credentials.token(ctx.appId, ctx.mode, gateway);
    if (!row || !refused(JSON.parse(decryptSecret(this.config.encryptionKey, row.sealed)))) return;
    await this.credentials.discardToken(ctx.appId, ctx.mode, gateway, row.sealed);
  }

  /**
   * The last error the gateway gave for the app and mode, kept with its
   * setup. False when the app has no credentials for it there (removed, or
   * never set): there is no setup to keep it on, the caller logs it.
   */
  noteError(
    scope: { appId: number; mode: GatewayMode },
    gateway: string,
    error: string,
  ): Promise<boolean> {
    return this.credentials.noteError(
      scope.appId,
      scope.mode,
      gateway,
      error.slice(0, 500),
      this.clock.now(),
    );
  }

  /**
   * The gateway answered a call for the app and mode. Cheap: one UPDATE by
   * primary key that writes only when the stored time is SUCCESS_NOTE_EVERY_MS
   * old or older than the last error (otherwise it matches no row and writes
   * nothing).
   */
  async noteSuccess(scope: { appId: number; mode: GatewayMode }, gateway: string): Promise<void> {
    await this.credentials.noteSuccess(
      scope.appId,
      scope.mode,
      gateway,
      this.clock.now(),
      SUCCESS_NOTE_EVERY_MS,
    );
  }

  /** The app's gateway setups per mode: no secret, only the last 4 characters of the first field. */
  async setups(
    appId: number,
    fieldsOf: (gateway: string) => readonly string[],
  ): Promise<GatewaySetup[]> {
    const rows = await this.credentials.setupsOf(appId);
    return rows.map((r) => {
      const fields = r.sealed
        ? (JSON.parse(decryptSecret(this.config.encryptionKey, r.sealed)) as Record<string, string>)
        : null;
      const first = fieldsOf(r.gateway)[0];
      const shown = first && fields ? (fields[first] ?? '') : '';
      return {
        mode: r.mode,
        gateway: r.gateway,
        configured: fields !== null,
        last4: fields ? shown.slice(-4) : null,
        isDefault: r.isDefault,
        lastError: r.lastError,
        lastErrorAt: r.lastErrorAt,
        lastSuccessAt: r.lastSuccessAt,
      };
    });
  }

  /**
   * Removes the app's credentials (and token) for a gateway in a mode,
   * audited; 404 when none. The removal is published (GatewayCredentialsRemoved)
   * in its transaction: 409 from a feature with work in flight at the
   * gateway (decisions section 19) rolls it back, audit entry included.
   */
  async remove(appId: number, mode: GatewayMode, gateway: string): Promise<void> {
    await this.removeInTx(appId, mode, gateway);
    this.changes.touch(appTopic(appId));
  }

  @Transactional()
  private async removeInTx(appId: number, mode: GatewayMode, gateway: string): Promise<void> {
    if (!(await this.credentials.remove(appId, mode, gateway)))
      throw AppError.notFound('Gateway credentials');
    await this.events.publish(new GatewayCredentialsRemoved({ appId, mode }, gateway));
    await this.audit.record({
      action: 'app.gateway_credentials_removed',
      targetType: 'app',
      targetId: appId,
      before: { mode, gateway },
    });
    await this.changes.announce(appTopic(appId));
  }
}

export interface GatewaySetup {
  mode: GatewayMode;
  gateway: string;
  /** False: credentials removed (or never set); the row keeps the gateway's diagnostics. */
  configured: boolean;
  last4: string | null;
  isDefault: boolean;
  lastError: string | null;
  lastErrorAt: Date | null;
  lastSuccessAt: Date | null;
}
