import { Global, Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { Metrics } from '../common/metrics/metrics';

@Global()
@Module({
  controllers: [HealthController],
  providers: [{ provide: Metrics, useFactory: () => new Metrics() }],
  exports: [Metrics],
})
export class HealthModule {}
