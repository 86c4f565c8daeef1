import { Global, Module } from '@nestjs/common';

import { Metrics } from '../common/metrics/metrics';
import { HealthController } from './health.controller';
import { HealthRepository } from './health.repository';
import { MetricsServer } from './metrics-server';
import { PoolMetrics } from './pool-metrics';

@Global()
@Module({
  controllers: [HealthController],
  providers: [
    { provide: Metrics, useFactory: () => new Metrics() },
    MetricsServer,
    PoolMetrics,
    HealthRepository,
  ],
  exports: [Metrics, MetricsServer],
})
export class HealthModule {}
