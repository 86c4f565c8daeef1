import { Global, Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { Metrics } from '../common/metrics/metrics';
import { MetricsServer } from './metrics-server';

@Global()
@Module({
  controllers: [HealthController],
  providers: [{ provide: Metrics, useFactory: () => new Metrics() }, MetricsServer],
  exports: [Metrics, MetricsServer],
})
export class HealthModule {}
