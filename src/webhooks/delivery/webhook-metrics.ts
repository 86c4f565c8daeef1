import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';

import { Metrics } from '../../common/metrics/metrics';

/** Webhook series on the process registry (GET /metrics). */
@Injectable()
export class WebhookMetrics {
  readonly attempts: Counter<'outcome'>;
  readonly attemptDuration: Histogram;
  readonly fannedOut: Counter<'routed'>;
  readonly firstAttemptDelay: Histogram;

  constructor(metrics: Metrics) {
    this.attempts = new Counter({
      name: 'joma_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (DELIVERED, RETRYING, PARKED)',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
    this.attemptDuration = new Histogram({
      name: 'joma_webhook_attempt_duration_seconds',
      help: 'Duration of webhook delivery attempts',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [metrics.registry],
    });
    this.firstAttemptDelay = new Histogram({
      name: 'joma_webhook_first_attempt_delay_seconds',
      help: 'From an event being recorded to the first attempt of each of its deliveries',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [metrics.registry],
    });
    this.fannedOut = new Counter({
      name: 'joma_webhook_deliveries_created_total',
      help: 'Deliveries created by fan-out (routed=false: UNDELIVERABLE, no endpoint)',
      labelNames: ['routed'],
      registers: [metrics.registry],
    });
  }
}
