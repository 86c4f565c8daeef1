import { Module } from '@nestjs/common';

import { GatewaysModule } from '../gateways.module';
import { NagadGateway } from './nagad.gateway';

/** The Nagad check-out adapter (TEST: Nagad's sandbox; LIVE: its live host). */
@Module({ imports: [GatewaysModule], providers: [NagadGateway], exports: [NagadGateway] })
export class NagadGatewayModule {}
