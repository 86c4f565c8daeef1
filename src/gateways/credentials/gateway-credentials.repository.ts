import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { sql } from '../../database/sql';
import type { GatewayMode } from '../payment-gateway.types';

/** Every query of the gateway_credentials table. */
@Injectable()
export class GatewayCredentialsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async upsert(appId: number, mode: GatewayMode, gateway: string, sealed: string): Promise<void> {
    await sql(this.txHost.tx).run(
      `INSERT INTO gateway_credentials (app_id, mode, gateway, sealed) VALUES ($1, $2, $3, $4)
       ON CONFLICT (app_id, mode, gateway) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = now()`,
      [appId, mode, gateway, sealed],
    );
  }

  /** Makes `gateway` the app's default in `mode` (and no other). */
  async makeDefault(appId: number, mode: GatewayMode, gateway: string): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE gateway_credentials SET is_default = false WHERE app_id = $1 AND mode = $2 AND is_default AND gateway <> $3`,
      [appId, mode, gateway],
    );
    await sql(this.txHost.tx).run(
      `UPDATE gateway_credentials SET is_default = true WHERE app_id = $1 AND mode = $2 AND gateway = $3`,
      [appId, mode, gateway],
    );
  }

  async sealedFor(appId: number, mode: GatewayMode, gateway: string): Promise<string | null> {
    const [row] = await sql(this.txHost.tx).rows<{ sealed: string }>(
      `SELECT sealed FROM gateway_credentials WHERE app_id = $1 AND mode = $2 AND gateway = $3`,
      [appId, mode, gateway],
    );
    return row?.sealed ?? null;
  }

  /** The gateways the app configured in `mode`, and which is the default (no secrets). */
  async configured(
    appId: number,
    mode: GatewayMode,
  ): Promise<{ gateway: string; isDefault: boolean }[]> {
    const rows = await sql(this.txHost.tx).rows<{ gateway: string; is_default: boolean }>(
      `SELECT gateway, is_default FROM gateway_credentials
        WHERE app_id = $1 AND mode = $2 AND sealed IS NOT NULL ORDER BY gateway`,
      [appId, mode],
    );
    return rows.map((r) => ({ gateway: r.gateway, isDefault: r.is_default }));
  }

  /** A gateway access token of the app and mode, sealed, and when it expires. */
  async token(
    appId: number,
    mode: GatewayMode,
    gateway: string,
  ): Promise<{ sealed: string; expiresAt: Date } | null> {
    const [row] = await sql(this.txHost.tx).rows<{ sealed: string; expires_at: Date }>(
      `SELECT sealed, expires_at FROM gateway_tokens WHERE app_id = $1 AND mode = $2 AND gateway = $3 AND sealed IS NOT NULL`,
      [appId, mode, gateway],
    );
    return row ? { sealed: row.sealed, expiresAt: new Date(row.expires_at) } : null;
  }

  async saveToken(
    appId: number,
    mode: GatewayMode,
    gateway: string,
    sealed: string,
    expiresAt: Date,
  ): Promise<void> {
    await sql(this.txHost.tx).run(
      `INSERT INTO gateway_tokens (app_id, mode, gateway, sealed, expires_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (app_id, mode, gateway) DO UPDATE SET sealed = EXCLUDED.sealed, expires_at = EXCLUDED.expires_at,
         failures = 0, backoff_until = NULL, updated_at = now()`,
      [appId, mode, gateway, sealed, expiresAt],
    );
  }

  /**
   * Takes the app's token lease for `ms` if nobody holds it (a row with no
   * token is made for it): true for exactly one caller at a time.
   */
  async leaseToken(
    appId: number,
    mode: GatewayMode,
    gateway: string,
    now: Date,
    until: Date,
  ): Promise<boolean> {
    const rows = await sql(this.txHost.tx).rows<unknown>(
      `INSERT INTO gateway_tokens (app_id, mode, gateway, sealed, expires_at, lease_until)
       VALUES ($1, $2, $3, NULL, 'epoch', $5)
       ON CONFLICT (app_id, mode, gateway) DO UPDATE SET lease_until = EXCLUDED.lease_until
         WHERE (gateway_tokens.lease_until IS NULL OR gateway_tokens.lease_until <= $4)
           AND (gateway_tokens.backoff_until IS NULL OR gateway_tokens.backoff_until <= $4)
       RETURNING 1`,
      [appId, mode, gateway, now, until],
    );
    return rows.length > 0;
  }

  /** Until when token calls of the app and mode back off (null: they may be made). */
  async tokenBackoff(appId: number, mode: GatewayMode, gateway: string): Promise<Date | null> {
    const [row] = await sql(this.txHost.tx).rows<{ backoff_until: Date | null }>(
      `SELECT backoff_until FROM gateway_tokens WHERE app_id = $1 AND mode = $2 AND gateway = $3`,
      [appId, mode, gateway],
    );
    return row?.backoff_until ? new Date(row.backoff_until) : null;
  }

  /**
   * A token call failed: one more failure in a row, and no token call until
   * `baseMs` doubled per earlier failure (at most `maxMs`) from `now`.
   * Returns until when.
   */
  async noteTokenFailure(
    appId: number,
    mode: GatewayMode,
    gateway: string,
    now: Date,
    baseMs: number,
    maxMs: number,
  ): Promise<Date> {
    const [row] = await sql(this.txHost.tx).rows<{ backoff_until: Date }>(
      `INSERT INTO gateway_tokens (app_id, mode, gateway, sealed, expires_at, failures, backoff_until)
       VALUES ($1, $2, $3, NULL, 'epoch', 1, $4::timestamptz + make_interval(secs => $5::double precision / 1000))
       ON CONFLICT (app_id, mode, gateway) DO UPDATE SET
         failures = gateway_tokens.failures + 1,
         backoff_until = $4::timestamptz + make_interval(secs =>
           LEAST($6::double precision, $5::double precision * power(2, LEAST(gateway_tokens.failures, 30))) / 1000)
       RETURNING backoff_until`,
      [appId, mode, gateway, now, baseMs, maxMs],
    );
    return new Date(row.backoff_until);
  }

  async releaseTokenLease(appId: number, mode: GatewayMode, gateway: string): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE gateway_tokens SET lease_until = NULL WHERE app_id = $1 AND mode = $2 AND gateway = $3`,
      [appId, mode, gateway],
    );
  }

  /**
   * Forgets the app's token (refused by the gateway, or its credentials
   * changed); with `sealed`, only if the stored token is still that one (not
   * one granted since).
   */
  async discardToken(
    appId: number,
    mode: GatewayMode,
    gateway: string,
    sealed?: string,
  ): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE gateway_tokens SET sealed = NULL, expires_at = 'epoch'
        WHERE app_id = $1 AND mode = $2 AND gateway = $3 AND ($4::text IS NULL OR sealed = $4)`,
      [appId, mode, gateway, sealed ?? null],
    );
  }

  /** Stores the last error (a row of its own when the app has no credentials); whether it has credentials. */
  async noteError(
    appId: number,
    mode: GatewayMode,
    gateway: string,
    error: string,
    at: Date,
  ): Promise<boolean> {
    // An app with no credentials for the gateway gets a row of diagnostics alone (sealed NULL).
    const [row] = await sql(this.txHost.tx).rows<{ configured: boolean }>(
      `INSERT INTO gateway_credentials (app_id, mode, gateway, sealed, last_error, last_error_at)
       VALUES ($1, $2, $3, NULL, $4, $5)
       ON CONFLICT (app_id, mode, gateway) DO UPDATE SET last_error = $4, last_error_at = $5
       RETURNING sealed IS NOT NULL AS configured`,
      [appId, mode, gateway, error, at],
    );
    return row?.configured ?? false;
  }

  /**
   * Records a success at `at` unless the stored one is less than `everyMs`
   * old and no error was noted since it (then the UPDATE matches no row and
   * writes nothing).
   */
  async noteSuccess(
    appId: number,
    mode: GatewayMode,
    gateway: string,
    at: Date,
    everyMs: number,
  ): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE gateway_credentials SET last_success_at = $4
        WHERE app_id = $1 AND mode = $2 AND gateway = $3
          AND (last_success_at IS NULL
               OR last_success_at <= $4::timestamptz - make_interval(secs => $5::double precision / 1000)
               OR (last_error_at IS NOT NULL AND last_error_at >= last_success_at))`,
      [appId, mode, gateway, at, everyMs],
    );
  }

  /** Every gateway setup of the app (sealed credentials included: the caller shows only their last 4 characters). */
  async setupsOf(appId: number): Promise<
    {
      mode: GatewayMode;
      gateway: string;
      /** Null: no credentials (removed, or never set), diagnostics only. */
      sealed: string | null;
      isDefault: boolean;
      lastError: string | null;
      lastErrorAt: Date | null;
      lastSuccessAt: Date | null;
    }[]
  > {
    const rows = await sql(this.txHost.tx).rows<{
      mode: GatewayMode;
      gateway: string;
      sealed: string | null;
      is_default: boolean;
      last_error: string | null;
      last_error_at: Date | null;
      last_success_at: Date | null;
    }>(
      `SELECT mode, gateway, sealed, is_default, last_error, last_error_at, last_success_at
         FROM gateway_credentials WHERE app_id = $1 ORDER BY mode, gateway`,
      [appId],
    );
    return rows.map((r) => ({
      mode: r.mode,
      gateway: r.gateway,
      sealed: r.sealed,
      isDefault: r.is_default,
      lastError: r.last_error,
      lastErrorAt: r.last_error_at ? new Date(r.last_error_at) : null,
      lastSuccessAt: r.last_success_at ? new Date(r.last_success_at) : null,
    }));
  }

  /**
   * Removes the app's credentials and token for a gateway in a mode, keeping
   * the row's diagnostics (last error, last success); false when there were none.
   */
  async remove(appId: number, mode: GatewayMode, gateway: string): Promise<boolean> {
    await sql(this.txHost.tx).run(
      `DELETE FROM gateway_tokens WHERE app_id = $1 AND mode = $2 AND gateway = $3`,
      [appId, mode, gateway],
    );
    const cleared = await sql(this.txHost.tx).run(
      `UPDATE gateway_credentials SET sealed = NULL, is_default = false, updated_at = now()
        WHERE app_id = $1 AND mode = $2 AND gateway = $3 AND sealed IS NOT NULL`,
      [appId, mode, gateway],
    );
    return cleared > 0;
  }
}
