import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { GatewayRegistry } from './gateway-registry.service';

/**
 * The gateway registry. Adapters live in their own modules (sandbox/, and
 * the coming sslcommerz/ and bkash/), added to the app beside this one.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [GatewayRegistry],
  exports: [GatewayRegistry],
})
export class GatewaysModule {}
