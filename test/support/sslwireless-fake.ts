import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentSms {
  msisdn: string;
  sms: string;
  csmsId: string;
  sid: string;
  /** When it was taken (the fake's clock). */
  at: number;
  /** Whether its answer went back (false: `loseNextAnswer`). */
  answered: boolean;
}

/** The calendar days of an instant in UTC and in Dhaka (UTC+6, no daylight saving). */
const days = (ms: number) =>
  [0, 6 * 3600_000].map((offset) => new Date(ms + offset).toISOString().slice(0, 10)).join('/');

/**
 * A local stand-in for SSL Wireless's SMS API v3 (POST /api/v3/send-sms with
 * JSON api_token, sid, msisdn, sms, csms_id), answering with the status
 * codes SSL Wireless publishes: SUCCESS (200) with smsinfo, FAILED for a
 * wrong token (4001), a bad number (4025 Invalid MSISDN), a csms_id that is
 * not 1 to 20 letters and digits (4020 Invalid CSMS ID) or a repeated
 * csms_id (4023 Duplicate CSMS ID). Source: SSL Wireless's ISMS Plus API
 * v3.0.0 document (https://smsplus.sslwireless.com): its parameter table
 * (csms_id: string, 20, alphanumeric, unique per day) and its status code
 * table, as public integrations reproduce them. `failNext(n)` answers the
 * next n calls with HTTP 503; `loseNextAnswer(n)` takes the next n messages
 * and then drops the connection without answering (the answer lost on the
 * way).
 * Given a clock (`now`), a csms_id is refused as a repeat only "within a
 * day", read as narrowly as it can be: on the day it was taken in UTC and in
 * Dhaka alike; past either midnight it is taken, and sent, again (`sent`
 * lists every message taken, repeats included). Without a clock, a repeated
 * csms_id is refused whenever it comes.
 */
export class SslWirelessFake {
  readonly sent: SentSms[] = [];
  private server!: Server;
  private failures = 0;
  private lostAnswers = 0;

  constructor(
    readonly apiToken = 'ssl-token-123',
    readonly sid = 'PADMABRAND',
    private readonly now?: () => number,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const reply = (status: number, json: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(json));
        };
        if (req.method !== 'POST' || req.url !== '/api/v3/send-sms')
          return reply(404, { status: 'FAILED', status_code: 404, error_message: 'Not found' });
        if (this.failures > 0) {
          this.failures--;
          return reply(503, {
            status: 'FAILED',
            status_code: 503,
            error_message: 'Service unavailable',
          });
        }
        const p = JSON.parse(body) as Record<string, string>;
        if (p.api_token !== this.apiToken || p.sid !== this.sid)
          return reply(200, { status: 'FAILED', status_code: 4001, error_message: 'Unauthorized' });
        if (!/^8801[3-9]\d{8}$/.test(p.msisdn))
          return reply(200, {
            status: 'FAILED',
            status_code: 4025,
            error_message: 'Invalid MSISDN',
          });
        if (typeof p.csms_id !== 'string' || !/^[A-Za-z0-9]{1,20}$/.test(p.csms_id))
          return reply(200, {
            status: 'FAILED',
            status_code: 4020,
            error_message: 'Invalid CSMS ID',
          });
        const at = this.now?.() ?? Date.now();
        const repeat = (s: SentSms) =>
          s.csmsId === p.csms_id && (!this.now || days(s.at) === days(at));
        if (this.sent.some(repeat))
          return reply(200, {
            status: 'FAILED',
            status_code: 4023,
            error_message: 'Duplicate CSMS ID',
          });
        const taken = { msisdn: p.msisdn, sms: p.sms, csmsId: p.csms_id, sid: p.sid, at };
        if (this.lostAnswers > 0) {
          this.lostAnswers--;
          this.sent.push({ ...taken, answered: false });
          return req.socket.destroy();
        }
        this.sent.push({ ...taken, answered: true });
        reply(200, {
          status: 'SUCCESS',
          status_code: 200,
          error_message: '',
          smsinfo: [
            {
              sms_status: 'SUCCESS',
              status_message: 'Success',
              msisdn: p.msisdn,
              csms_id: p.csms_id,
            },
          ],
        });
      });
    });
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    return this;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  failNext(count: number): void {
    this.failures = count;
  }

  loseNextAnswer(count: number): void {
    this.lostAnswers = count;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((ok) => this.server.close(() => ok()));
  }
}
