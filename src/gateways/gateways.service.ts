import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { PaymentGateway, SandboxChoice } from './payment-gateway.types';
import { SandboxGateway } from './sandbox/sandbox.gateway';

export const DEFAULT_GATEWAY = 'sandbox';

/** The adapters this deployment offers, by name; chosen per payment. */
@Injectable()
export class GatewaysService {
  private readonly gateways: Map<string, PaymentGateway>;

  constructor(private readonly sandbox: SandboxGateway) {
    this.gateways = new Map<string, PaymentGateway>([[sandbox.name, sandbox]]);
  }

  names(): string[] {
    return [...this.gateways.keys()];
  }

  get(name: string): PaymentGateway {
    const gateway = this.gateways.get(name);
    if (!gateway) {
      throw new AppError(ErrorCode.VALIDATION_FAILED, 'Validation failed', [
        { field: 'gateway', message: `gateway must be one of: ${this.names().join(', ')}` },
      ]);
    }
    return gateway;
  }

  /**
   * The gateway a new payment of this mode uses. The sandbox moves no money,
   * so it serves TEST only: a LIVE payment needs a real gateway.
   */
  forMode(mode: 'TEST' | 'LIVE', name?: string): PaymentGateway {
    const gateway = this.get(name ?? (mode === 'TEST' ? DEFAULT_GATEWAY : this.liveDefault()));
    if (mode === 'LIVE' && gateway.name === DEFAULT_GATEWAY) {
      throw new AppError(ErrorCode.VALIDATION_FAILED, 'Validation failed', [
        {
          field: 'gateway',
          message: 'the sandbox gateway is for TEST mode only; LIVE payments need a real gateway',
        },
      ]);
    }
    return gateway;
  }

  private liveDefault(): string {
    return this.names().find((n) => n !== DEFAULT_GATEWAY) ?? DEFAULT_GATEWAY;
  }

  /**
   * The customer's choice on a sandbox checkout (what the test helpers
   * simulate). False when the session does not exist.
   */
  async completeSandboxCheckout(
    sessionId: string,
    choice: SandboxChoice,
  ): Promise<'done' | 'missing' | 'refused'> {
    const done = await this.sandbox.complete(sessionId, choice);
    return !done ? 'missing' : done.refused ? 'refused' : 'done';
  }

  has(name: string): boolean {
    return this.gateways.has(name);
  }

  /** Whether a new payment of this mode can be taken at all (some gateway serves it). */
  servesMode(mode: 'TEST' | 'LIVE'): boolean {
    try {
      this.forMode(mode);
      return true;
    } catch {
      return false;
    }
  }
}
