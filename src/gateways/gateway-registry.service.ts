import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';

import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { GatewayCredentialsService } from './credentials/gateway-credentials.service';
import { GATEWAY_ADAPTER } from './gateway-adapter.decorator';
import type { GatewayContext, GatewayMode, PaymentGateway } from './payment-gateway.types';

/**
 * The adapters this deployment offers, by name, found at start-up from their
 * @GatewayAdapter() marks. Chosen per payment; a mode's default is an adapter
 * made for that mode alone (the sandbox for TEST), else the first by name
 * that serves it.
 */
@Injectable()
export class GatewayRegistry implements OnModuleInit {
  private readonly logger = new Logger('Gateways');
  private gateways = new Map<string, PaymentGateway>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly credentials: GatewayCredentialsService,
  ) {}

  /**
   * The context of one call to `gateway` about the app's money in `mode`
   * (its credentials opened; no database read for a gateway that takes none).
   */
  async context(
    scope: { appId: number; mode: GatewayMode },
    gateway: string,
  ): Promise<GatewayContext> {
    if (this.gateways.get(gateway)?.credentialFields.length === 0)
      return { appId: scope.appId, mode: scope.mode, credentials: null };
    return this.credentials.contextFor(scope, gateway);
  }

  /**
   * Remembers the last error a gateway gave for the app and mode (shown by
   * GET /admin/apps/{id}/gateways); the text is the adapter's, which never
   * carries credentials. An app without credentials for the gateway there
   * (removed, or never set) keeps it too (a row of diagnostics alone, shown
   * with `configured: false`), and it is also logged as an error (the
   * caller's own line names the payment or refund). Never throws:
   * diagnostics must not fail a payment.
   */
  async noteError(
    scope: { appId: number; mode: GatewayMode },
    gateway: string,
    error: string,
  ): Promise<void> {
    if (this.gateways.get(gateway)?.credentialFields.length === 0) return;
    const kept = await this.credentials.noteError(scope, gateway, error).catch(() => true);
    if (!kept)
      this.logger.error(
        `${gateway} failed for app ${scope.appId} in ${scope.mode} mode, which has no ${gateway} credentials there (set them with PATCH /api/v1/admin/apps/${scope.appId}/gateways/${gateway}?mode=${scope.mode}): ${error}`,
      );
  }

  /**
   * Remembers that a gateway answered a call for the app and mode (a
   * checkout opened, a status or a refund answered), shown as
   * `lastSuccessAt` beside the last error. Written at most once a minute
   * per app, mode and gateway, at once after an error. Never throws.
   */
  async noteSuccess(scope: { appId: number; mode: GatewayMode }, gateway: string): Promise<void> {
    if (this.gateways.get(gateway)?.credentialFields.length === 0) return;
    await this.credentials.noteSuccess(scope, gateway).catch(() => undefined);
  }

  /**
   * The gateway a new payment of the app uses: the one named, else the app's
   * default in this mode, else the mode's default among those the app can
   * use (a gateway that needs credentials only once the app has set them).
   * 400 naming the choices when there is none.
   */
  async forApp(
    scope: { appId: number; mode: GatewayMode },
    name: string | undefined,
    amountMinor: number,
  ): Promise<PaymentGateway> {
    if (name !== undefined) {
      const gateway = this.forMode(scope.mode, name);
      if (gateway.credentialFields.length > 0 && !(await this.choices(scope)).includes(gateway))
        throw AppError.validation(
          'gateway',
          `the ${name} gateway has no credentials for this app in ${scope.mode} mode (an operator sets them with PATCH /api/v1/admin/apps/{id}/gateways/${name})`,
        );
      if (!admits(gateway, amountMinor)) throw outsideLimits([gateway], amountMinor);
      return gateway;
    }
    const usable = await this.choices(scope);
    if (usable.length === 0)
      throw AppError.validation(
        'gateway',
        `no gateway takes ${scope.mode} payments for this app yet (${this.describe()}; gateways that need credentials need them set for the app)`,
      );
    const preferred = usable.find((g) => admits(g, amountMinor));
    if (!preferred) throw outsideLimits(usable, amountMinor);
    return preferred;
  }

  /**
   * The gateways the app can take a payment of this mode through (of
   * `amountMinor`, when given: only those whose limits admit it): its
   * default first, then by name.
   */
  async choicesFor(
    scope: { appId: number; mode: GatewayMode },
    amountMinor?: number,
  ): Promise<string[]> {
    return (await this.choices(scope))
      .filter((g) => amountMinor === undefined || admits(g, amountMinor))
      .map((g) => g.name);
  }

  /** Whether the app can take a payment in this mode now. */
  async canCollect(scope: { appId: number; mode: GatewayMode }): Promise<boolean> {
    return (await this.choices(scope)).length > 0;
  }

  /**
   * Gateways serving the mode that need no credentials or whose credentials
   * the app has set, in order of preference: the app's default, then one
   * made for this mode alone (the sandbox for TEST), then by name. One
   * database read at most.
   */
  private async choices(scope: { appId: number; mode: GatewayMode }): Promise<PaymentGateway[]> {
    const serving = [...this.gateways.values()].filter((g) => g.modes.includes(scope.mode));
    const configured = serving.some((g) => g.credentialFields.length > 0)
      ? await this.credentials.configured(scope.appId, scope.mode)
      : [];
    const usable = serving.filter(
      (g) => g.credentialFields.length === 0 || configured.some((c) => c.gateway === g.name),
    );
    const chosen = configured.find((c) => c.isDefault)?.gateway;
    const rank = (g: PaymentGateway) => (g.name === chosen ? 0 : g.modes.length === 1 ? 1 : 2);
    return usable.sort((a, b) => rank(a) - rank(b));
  }

  onModuleInit(): void {
    const found = this.discovery
      .getProviders()
      .filter((w) => w.metatype && this.reflector.get<boolean>(GATEWAY_ADAPTER, w.metatype))
      .map((w) => w.instance as PaymentGateway)
      .sort((a, b) => a.name.localeCompare(b.name));
    for (const gateway of found) {
      if (this.gateways.has(gateway.name)) throw new Error(`Two gateways named ${gateway.name}`);
      this.gateways.set(gateway.name, gateway);
    }
  }

  names(): string[] {
    return [...this.gateways.keys()];
  }

  has(name: string): boolean {
    return this.gateways.has(name);
  }

  /** The adapter of an existing payment (400 naming the choices when unknown). */
  get(name: string): PaymentGateway {
    const gateway = this.gateways.get(name);
    if (!gateway)
      throw AppError.validation('gateway', `gateway must be one of: ${this.names().join(', ')}`);
    return gateway;
  }

  /** The gateway a new payment of this mode uses: the one named, or the mode's default. */
  forMode(mode: GatewayMode, name?: string): PaymentGateway {
    if (name !== undefined) {
      const gateway = this.get(name);
      if (!gateway.modes.includes(mode)) {
        throw AppError.validation(
          'gateway',
          `the ${name} gateway serves ${gateway.modes.join(' and ')} mode only; ${mode} payments need a real gateway`,
        );
      }
      return gateway;
    }
    const serving = [...this.gateways.values()].filter((g) => g.modes.includes(mode));
    const fallback = serving.find((g) => g.modes.length === 1) ?? serving[0];
    if (!fallback)
      throw AppError.validation(
        'gateway',
        `no gateway of this deployment takes ${mode} payments (${this.describe()})`,
      );
    return fallback;
  }

  private describe(): string {
    const all = [...this.gateways.values()];
    if (all.length === 0) return 'none is configured';
    return all.map((g) => `${g.name} serves ${g.modes.join(' and ')} mode only`).join('; ');
  }
}

function admits(gateway: PaymentGateway, amountMinor: number): boolean {
  const l = gateway.limits;
  return !l || (amountMinor >= l.minMinor && amountMinor <= l.maxMinor);
}

/** 422 naming each gateway's limits (an amount no gateway the app can use admits). */
function outsideLimits(gateways: PaymentGateway[], amountMinor: number): AppError {
  const ranges = gateways
    .filter((g) => g.limits)
    .map((g) => `${g.name} takes ${g.limits!.minMinor} to ${g.limits!.maxMinor}`)
    .join('; ');
  return new AppError(
    ErrorCode.AMOUNT_OUT_OF_RANGE,
    `amountMinor ${amountMinor} is outside what the gateway can take in one transaction (${ranges})`,
    [{ field: 'amountMinor', message: ranges }],
  );
}
