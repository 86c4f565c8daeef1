import { createServer, Server } from 'node:http';

import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

import { Metrics } from '../common/metrics/metrics';
import { AppConfig } from '../config/app-config';

/**
 * Prometheus metrics on their own listener (METRICS_HOST:METRICS_PORT,
 * 127.0.0.1:9464 by default; port 0 turns it off), never on the public port:
 * request volume per route is business information. A port already taken
 * (a second replica on one host) costs one warning, not the service.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** Where it listens, once listening (for start-up output). */
  address: string | null = null;

  async onApplicationBootstrap(): Promise<void> {
    const { metricsPort: port, metricsHost: host } = this.config;
    if (port === 0) return;
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
        return;
      }
      this.metrics.registry.metrics().then(
        (body) =>
          res.writeHead(200, { 'Content-Type': this.metrics.registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((ok) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        this.logger.warn(
          `Metrics listener not started: ${host}:${port} is ${err.code === 'EADDRINUSE' ? 'already in use' : `unavailable (${err.code})`}; set METRICS_PORT to a free port (0 turns it off)`,
        );
        ok();
      });
      server.listen(port, host, () => {
        this.server = server;
        this.address = `http://${host}:${port}/metrics`;
        ok();
      });
    });
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((ok) => server.close(() => ok()));
  }
}
