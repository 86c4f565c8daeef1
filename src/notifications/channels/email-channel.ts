import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { createTransport, type Transporter, type TransportOptions } from 'nodemailer';

import { AppConfig } from '../../config/app-config';
import { SendError } from './send-error';

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** A stable id per message (Message-ID), so a mail client can tell copies apart. */
  id: string;
}

/**
 * Email through SMTP with nodemailer (decisions 16): `SMTP_URL`
 * (smtp://[user:pass@]host[:port], STARTTLS when the server offers it;
 * smtps:// for TLS from the start), from `MAIL_FROM`. An SMTP 4xx answer or
 * a network failure is temporary (tried again); a 5xx is not.
 */
@Injectable()
export class EmailChannel implements OnModuleDestroy {
  private transport: Transporter | null = null;

  constructor(private readonly config: AppConfig) {}

  /** Whether email can go out at all (LIVE: else the message is SKIPPED). */
  get configured(): boolean {
    return !!this.config.smtpUrl;
  }

  async send(mail: OutgoingEmail): Promise<void> {
    if (!this.config.smtpUrl) throw new SendError('SMTP_URL is not set', false);
    this.transport ??= createTransport({
      url: this.config.smtpUrl,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    } as TransportOptions);
    try {
      await this.transport.sendMail({
        from: this.config.mailFrom,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: `<${mail.id}@joma>`,
      });
    } catch (err) {
      const e = err as { responseCode?: number; response?: string; code?: string; message: string };
      if (typeof e.responseCode === 'number') {
        throw new SendError(
          `SMTP ${e.responseCode}: ${(e.response ?? e.message).slice(0, 300)}`,
          e.responseCode < 500,
        );
      }
      throw new SendError(`SMTP: ${e.code ?? ''} ${e.message}`.trim().slice(0, 300), true);
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}
