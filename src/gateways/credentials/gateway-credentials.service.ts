import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';
import { decryptSecret, encryptSecret } from '../../common/crypto/crypto';
import { AppError } from '../../common/errors/app-error';
import { AppConfig } from '../../config/app-config';
import { isForeignKeyViolation } from '../../database/transaction';
import type { GatewayContext, GatewayMode } from '../payment-gateway.types';
import { GatewayCredentialsRepository } from './gateway-credentials.repository';

/**
 * Apps' credentials for real gateways, sealed with ENCRYPTION_KEY at rest,
 * opened only to hand them to the adapter for one call. Never returned by
 * the API, never logged.
 */
@Injectable()
export class GatewayCredentialsService {
  constructor(
    private readonly credentials: GatewayCredentialsRepository,
    private readonly config: AppConfig,
  ) {}

  /** Stores (replaces) the app's credentials for a gateway in a mode; optionally its default there. */
  @Transactional()
  async set(
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

  configured(appId: number, mode: GatewayMode) {
    return this.credentials.configured(appId, mode);
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
}
