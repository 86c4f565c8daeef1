import { Global, Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthRepository } from './health.repository';
import { Metrics } from '../common/metrics/metrics';
import { MetricsServer } from './metrics-server';

@Global()
@Module({
  controllers: [HealthController],
  providers: [
    { provide: Metrics, useFactory: () => new Metrics() },
    MetricsServer,
    HealthRepository,
  ],
  exports: [Metrics, MetricsServer],
})
export class HealthModule {}
