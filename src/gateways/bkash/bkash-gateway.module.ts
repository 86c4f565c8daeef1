import { Module } from '@nestjs/common';

import { GatewaysModule } from '../gateways.module';
import { BkashGateway } from './bkash.gateway';

/** The bKash tokenized-checkout adapter (TEST: bKash's sandbox; LIVE: its live host). */
@Module({ imports: [GatewaysModule], providers: [BkashGateway], exports: [BkashGateway] })
export class BkashGatewayModule {}
