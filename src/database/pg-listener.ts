import { Logger } from '@nestjs/common';
import { Client } from 'pg';

/**
 * A dedicated connection LISTENing on some channels. NOTIFY is a hint (users
 * also poll, or expire what they cache), so a lost connection just means a
 * reconnect after a second; `onConnect` runs after every (re)connect so a
 * user can make up for notifications missed while disconnected.
 */
export class PgListener {
  private readonly logger = new Logger(PgListener.name);
  private client: Client | null = null;
  private stopped = true;
  private retryTimer: NodeJS.Timeout | null = null;
  /** The server said it is shutting down (57P01): expected on a clean stop, not worth a warning. */
  private serverShutdown = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly channels: string[],
    private readonly onNotify: (channel: string, payload: string | undefined) => void,
    private readonly name = 'joma-listener',
    private readonly onConnect: () => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  /**
   * Ends the connection, and one still being opened (a stop during a
   * reconnect): when it returns, this listener holds no connection.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const client = this.client;
    this.client = null;
    // end() resolves once the socket has closed, a connect under way included (pg
    // then leaves that connect() unsettled: the attempt below just never goes on).
    const opening = this.opening;
    await Promise.all([client?.end(), opening?.end()].map((p) => p?.catch(() => undefined)));
  }

  /** The client being connected, until it has connected and listens (or failed). */
  private opening: Client | null = null;

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.databaseUrl,
      application_name: this.name,
    });
    this.opening = client;
    client.on('notification', (msg) => this.onNotify(msg.channel, msg.payload));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of this.channels) await client.query(`LISTEN ${channel}`);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.serverShutdown = false;
      this.onConnect();
    } catch (err) {
      this.lost(client, err as Error);
    } finally {
      if (this.opening === client) this.opening = null;
    }
  }

  private lost(client: Client, err?: Error): void {
    if (this.stopped || (this.client !== null && this.client !== client)) return;
    if ((err as { code?: string } | undefined)?.code === '57P01') this.serverShutdown = true;
    if (err && this.serverShutdown) {
      this.logger.debug(`${this.name}: the database is shutting down (${err.message})`);
    } else if (err) {
      this.logger.warn(`${this.name} connection lost: ${err.message}`);
    }
    this.client = null;
    client.end().catch(() => undefined);
    if (!this.retryTimer) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        void this.connect();
      }, 1000);
      this.retryTimer.unref();
    }
  }
}
