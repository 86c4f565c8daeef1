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

  defaultOf(scope: { appId: number; mode: GatewayMode }): Promise<string | null> {
    return this.credentials.defaultOf(scope.appId, scope.mode);
  }

  configured(appId: number, mode: GatewayMode) {
    return this.credentials.configured(appId, mode);
  }
}
