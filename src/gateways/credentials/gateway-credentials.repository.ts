import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { GatewayMode } from '../payment-gateway.types';

/** Every query of the gateway_credentials table. */
@Injectable()
export class GatewayCredentialsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async upsert(appId: number, mode: GatewayMode, gateway: string, sealed: string): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO gateway_credentials (app_id, mode, gateway, sealed) VALUES ($1, $2, $3, $4)
       ON CONFLICT (app_id, mode, gateway) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = now()`,
      [appId, mode, gateway, sealed],
    );
  }

  /** Makes `gateway` the app's default in `mode` (and no other). */
  async makeDefault(appId: number, mode: GatewayMode, gateway: string): Promise<void> {
    await this.txHost.tx.query(
      `UPDATE gateway_credentials SET is_default = false WHERE app_id = $1 AND mode = $2 AND is_default AND gateway <> $3`,
      [appId, mode, gateway],
    );
    await this.txHost.tx.query(
      `UPDATE gateway_credentials SET is_default = true WHERE app_id = $1 AND mode = $2 AND gateway = $3`,
      [appId, mode, gateway],
    );
  }

  async sealedFor(appId: number, mode: GatewayMode, gateway: string): Promise<string | null> {
    const [row] = (await this.txHost.tx.query(
      `SELECT sealed FROM gateway_credentials WHERE app_id = $1 AND mode = $2 AND gateway = $3`,
      [appId, mode, gateway],
    )) as { sealed: string }[];
    return row?.sealed ?? null;
  }

  /** The gateways the app configured in `mode`, and which is the default (no secrets). */
  async configured(
    appId: number,
    mode: GatewayMode,
  ): Promise<{ gateway: string; isDefault: boolean }[]> {
    const rows = (await this.txHost.tx.query(
      `SELECT gateway, is_default FROM gateway_credentials WHERE app_id = $1 AND mode = $2 ORDER BY gateway`,
      [appId, mode],
    )) as { gateway: string; is_default: boolean }[];
    return rows.map((r) => ({ gateway: r.gateway, isDefault: r.is_default }));
  }

  /** A gateway access token of the app and mode, sealed, and when it expires. */
  async token(
    appId: number,
    mode: GatewayMode,
    gateway: string,
  ): Promise<{ sealed: string; expiresAt: Date } | null> {
    const [row] = (await this.txHost.tx.query(
      `SELECT sealed, expires_at FROM gateway_tokens WHERE app_id = $1 AND mode = $2 AND gateway = $3`,
      [appId, mode, gateway],
    )) as { sealed: string; expires_at: Date }[];
    return row ? { sealed: row.sealed, expiresAt: new Date(row.expires_at) } : null;
  }

  async saveToken(
    appId: number,
    mode: GatewayMode,
    gateway: string,
    sealed: string,
    expiresAt: Date,
  ): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO gateway_tokens (app_id, mode, gateway, sealed, expires_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (app_id, mode, gateway) DO UPDATE SET sealed = EXCLUDED.sealed, expires_at = EXCLUDED.expires_at, updated_at = now()`,
      [appId, mode, gateway, sealed, expiresAt],
    );
  }
}
