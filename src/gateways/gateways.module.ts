import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';

import { AppsModule } from '../apps';
import { AuditModule } from '../audit';
import { AuthModule } from '../auth';
import { GatewayCredentialsController } from './credentials/gateway-credentials.controller';
import { GatewayCredentialsRepository } from './credentials/gateway-credentials.repository';
import { GatewayCredentialsService } from './credentials/gateway-credentials.service';
import { GatewayRegistry } from './gateway-registry.service';

/**
 * The gateway registry and apps' gateway credentials. Adapters live in their
 * own modules (sandbox/, sslcommerz/, ...), added to the app beside this one.
 */
@Module({
  imports: [DiscoveryModule, AppsModule, AuditModule, AuthModule],
  controllers: [GatewayCredentialsController],
  providers: [GatewayCredentialsRepository, GatewayCredentialsService, GatewayRegistry],
  exports: [GatewayRegistry, GatewayCredentialsService],
})
export class GatewaysModule {}
