import { Injectable } from '@nestjs/common';

import { OnDomainEvent } from '../common/domain-events';
import { AppError } from '../common/errors/app-error';
import { GatewayCredentialsRemoved } from '../gateways';
import { PaymentsService } from '../payments';
import { RefundsRepository } from './refunds.repository';

/**
 * An app's credentials for a gateway are not removed while the gateway has
 * work in flight for the app in that mode (decisions section 19): its
 * PENDING payments and PENDING refunds are confirmed or decided only by
 * asking the gateway, with those credentials. 409 INVALID_STATE naming how
 * many of each, in the removal's transaction (the delete and its audit entry
 * roll back). Replacing the credentials (PATCH) stays allowed.
 */
@Injectable()
export class GatewayInFlightSubscriber {
  constructor(
    private readonly payments: PaymentsService,
    private readonly refunds: RefundsRepository,
  ) {}

  @OnDomainEvent(GatewayCredentialsRemoved)
  async onRemoved(fact: GatewayCredentialsRemoved): Promise<void> {
    const payments = await this.payments.countPendingAtGateway(fact.scope, fact.gateway);
    const refunds = await this.refunds.countPendingAtGateway(fact.scope, fact.gateway);
    if (payments === 0 && refunds === 0) return;
    throw AppError.invalidState(
      `The ${fact.gateway} gateway has work in flight for this app in ${fact.scope.mode} mode: ` +
        `${count(payments, 'pending payment')} and ${count(refunds, 'pending refund')}; ` +
        'wait for them to finish (or replace the credentials with PATCH instead of removing them)',
    );
  }
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}
