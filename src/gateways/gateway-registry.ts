import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { PaymentGateway } from './payment-gateway';
import { SandboxGateway } from './sandbox/sandbox.gateway';

export const DEFAULT_GATEWAY = 'sandbox';

/** The adapters this deployment offers, by name; chosen per payment. */
@Injectable()
export class GatewayRegistry {
  private readonly gateways: Map<string, PaymentGateway>;

  constructor(sandbox: SandboxGateway) {
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

  has(name: string): boolean {
    return this.gateways.has(name);
  }
}
