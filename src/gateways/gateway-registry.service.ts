import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { AppError } from '../common/errors/app-error';
import { GATEWAY_ADAPTER } from './gateway-adapter.decorator';
import type { GatewayMode, PaymentGateway } from './payment-gateway.types';

/**
 * The adapters this deployment offers, by name, found at start-up from their
 * @GatewayAdapter() marks. Chosen per payment; a mode's default is an adapter
 * made for that mode alone (the sandbox for TEST), else the first by name
 * that serves it.
 */
@Injectable()
export class GatewayRegistry implements OnModuleInit {
  private gateways = new Map<string, PaymentGateway>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

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

  /** Whether a new payment of this mode can be taken at all (some gateway serves it). */
  servesMode(mode: GatewayMode): boolean {
    return [...this.gateways.values()].some((g) => g.modes.includes(mode));
  }
}
