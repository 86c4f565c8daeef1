import type { AddressInfo } from 'node:net';

import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  parsed: ParsedMail;
  raw: string;
}

/**
 * A real SMTP server on loopback (nodemailer's smtp-server), no TLS and no
 * auth, keeping every message it accepts. `refuseNext(n, code)` answers the
 * next n recipients with an SMTP error (451: try later; 550: no such user).
 * `answerDataAfter(ms)` keeps every message it receives but answers the
 * end of DATA only after `ms` (a slow server: past the client's timeout,
 * the client cannot know the message was taken).
 */
export class SmtpSink {
  readonly received: ReceivedMail[] = [];
  private refusals: { code: number; left: number } | null = null;
  private dataAnswerDelayMs = 0;
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
            sink.received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              parsed,
              raw,
            });
            if (sink.dataAnswerDelayMs > 0) setTimeout(done, sink.dataAnswerDelayMs);
            else done();
          }, done);
        });
      },
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

  close(): Promise<void> {
    return new Promise((ok) => this.server.close(() => ok()));
  }
}
