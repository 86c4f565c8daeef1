import type { AddressInfo, Socket } from 'node:net';

import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  parsed: ParsedMail;
  raw: string;
  /**
   * How the end of DATA was answered: `ok` after `afterMs`, or `dropped`
   * (the message was kept, then the connection closed with no answer).
   */
  answer: { kind: 'ok'; afterMs: number } | { kind: 'dropped' };
}

/** How the sink answers one message: OK after `ms` (a slow or late server), or `drop` the connection. */
export type SmtpAnswer = number | 'drop';

/**
 * A real SMTP server on loopback (nodemailer's smtp-server), no TLS and no
 * auth, keeping every message it accepts. `refuseNext(n, code)` answers the
 * next n recipients with an SMTP error (451: try later; 550: no such user).
 * `answerDataAfter(ms)` keeps every message it receives but answers the
 * end of DATA only after `ms` (a slow server: past the client's timeout,
 * the client cannot know the message was taken). `answerNext(answer)`
 * does so for the next message only (queued: one call, one message): a
 * delay, or `drop` (keeps the message, then closes the connection without
 * answering: the answer lost on the way). `answerAsUsual()` forgets what was
 * queued and refused. Each kept message says how it was answered.
 */
export class SmtpSink {
  readonly received: ReceivedMail[] = [];
  private refusals: { code: number; left: number } | null = null;
  private dataAnswerDelayMs = 0;
  private nextAnswers: SmtpAnswer[] = [];
  /** The client's sockets by remote port (a session names its port): `drop` closes one. */
  private readonly sockets = new Map<number, Socket>();
  private server!: SMTPServer;

  static async start(): Promise<SmtpSink> {
    const sink = new SmtpSink();
    sink.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo(address: SMTPServerAddress, _session, done) {
        const r = sink.refusals;
        if (r && r.left > 0) {
          r.left--;
          const err = new Error(r.code < 500 ? 'Try again later' : 'No such user') as Error & {
            responseCode: number;
          };
          err.responseCode = r.code;
          return done(err);
        }
        void address;
        done();
      },
      onData(stream, session, done) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          void simpleParser(raw).then((parsed) => {
            const how = sink.nextAnswers.shift() ?? sink.dataAnswerDelayMs;
            sink.received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              parsed,
              raw,
              answer: how === 'drop' ? { kind: 'dropped' } : { kind: 'ok', afterMs: how },
            });
            if (how === 'drop') sink.sockets.get(session.remotePort)?.destroy();
            else if (how > 0) setTimeout(done, how);
            else done();
          }, done);
        });
      },
    });
    sink.server.server.on('connection', (socket: Socket) => {
      const port = socket.remotePort ?? 0;
      sink.sockets.set(port, socket);
      socket.on('close', () => sink.sockets.delete(port));
    });
    await new Promise<void>((ok) => sink.server.listen(0, '127.0.0.1', ok));
    return sink;
  }

  get url(): string {
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  refuseNext(count: number, code: number): void {
    this.refusals = { code, left: count };
  }

  /** Answers the end of DATA only after `ms` (0: at once), the message kept either way. */
  answerDataAfter(ms: number): void {
    this.dataAnswerDelayMs = ms;
  }

  /** The next message not yet given an answer is answered so (after `ms`, or the connection dropped). */
  answerNext(answer: SmtpAnswer): void {
    this.nextAnswers.push(answer);
  }

  /** No queued answers nor refusals left: every message accepted and answered at once. */
  answerAsUsual(): void {
    this.nextAnswers = [];
    this.refusals = null;
    this.dataAnswerDelayMs = 0;
  }

  close(): Promise<void> {
    return new Promise((ok) => this.server.close(() => ok()));
  }
}
