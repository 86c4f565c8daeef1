import { createSocket, Socket } from 'node:dgram';

/**
 * A DNS server on 127.0.0.1 that receives queries and never answers (a
 * tarpit), for tests of what a stuck resolver costs. Point Joma at it with
 * `webhookDnsServers: [stub.server]`.
 */
export class SilentDnsServer {
  readonly queries: Buffer[] = [];
  private socket!: Socket;

  static async start(): Promise<SilentDnsServer> {
    const s = new SilentDnsServer();
    s.socket = createSocket('udp4');
    s.socket.on('message', (msg) => s.queries.push(msg));
    await new Promise<void>((ok) => s.socket.bind(0, '127.0.0.1', ok));
    return s;
  }

  get server(): string {
    return `127.0.0.1:${this.socket.address().port}`;
  }

  close(): Promise<void> {
    return new Promise((ok) => this.socket.close(() => ok()));
  }
}
