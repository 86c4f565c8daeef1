import { Module } from '@nestjs/common';

import { SslcommerzGateway } from './sslcommerz.gateway';

/** The SSLCommerz adapter (TEST: its sandbox host; LIVE: its live host). */
@Module({ providers: [SslcommerzGateway], exports: [SslcommerzGateway] })
export class SslcommerzGatewayModule {}
