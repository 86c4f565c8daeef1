import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';

import { Metrics } from '../common/metrics/metrics';

/** Customer notification series on the process registry (GET /metrics, decisions 16). */
@Injectable()
export class NotificationMetrics {
  /** Messages by channel and the status they reached (SENT, FAILED, SKIPPED, CAPTURED, QUEUED when decided). */
  readonly messages: Counter<'channel' | 'status'>;
  /** Messages waiting to be sent or tried again, per channel (as of the worker's last look). */
  readonly queued: Gauge<'channel'>;

  constructor(metrics: Metrics) {
    this.messages = new Counter({
      name: 'joma_notifications_total',
      help: 'Customer notifications by channel and status: QUEUED when decided, then SENT or FAILED; SKIPPED and CAPTURED (TEST) when decided',
      labelNames: ['channel', 'status'],
      registers: [metrics.registry],
    });
    this.queued = new Gauge({
      name: 'joma_notifications_queued',
      help: 'Customer notifications waiting to be sent or tried again, by channel',
      labelNames: ['channel'],
      registers: [metrics.registry],
    });
  }
}
