import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

interface RouteSeries {
  duration: ReturnType<Histogram<'method' | 'route'>['labels']>;
  byStatus: Map<number, ReturnType<Counter<'method' | 'route' | 'status'>['labels']>>;
}

/** One Prometheus registry per process (per app instance in tests). */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  /** The label children of each route, looked up once (route templates are few). */
  private readonly routes = new Map<string, RouteSeries>();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'joma_' });
    this.httpRequests = new Counter({
      name: 'joma_http_requests_total',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.httpDuration = new Histogram({
      name: 'joma_http_request_duration_seconds',
      help: 'HTTP request duration by method and route template',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
  }

  /** One finished HTTP request: no label objects or hashing per request. */
  observeHttp(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route}`;
    let series = this.routes.get(key);
    if (!series) {
      series = { duration: this.httpDuration.labels(method, route), byStatus: new Map() };
      this.routes.set(key, series);
    }
    series.duration.observe(seconds);
    let counter = series.byStatus.get(status);
    if (!counter) {
      counter = this.httpRequests.labels(method, route, String(status));
      series.byStatus.set(status, counter);
    }
    counter.inc();
  }
}
