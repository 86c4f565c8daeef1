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
  /** The sender's display name (the merchant the message names); null: `MAIL_FROM`'s own. */
  senderName?: string | null;
}

/** nodemailer's timeouts that fire before the message went out (connecting, greeting, TLS). */
const BEFORE_HAND_OVER_TIMEOUTS = new Set([
  'CONNECT_TIMEOUT',
  'GREETING_TIMEOUT',
  'UPGRADE_TIMEOUT',
]);
/** nodemailer's and the system's codes of failures that leave no message at the server. */
const BEFORE_HAND_OVER_CODES = new Set([
  'EDNS',
  'ETLS',
  'EAUTH',
  'ENOAUTH',
  'ECONFIG',
  'EENVELOPE',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** The address part of `MAIL_FROM` (`Name <a@b>` or `a@b`). */
export function mailFromAddress(mailFrom: string): string {
  return /<\s*([^<>\s]+)\s*>\s*$/.exec(mailFrom)?.[1] ?? mailFrom.trim();
}

/**
 * Email through SMTP with nodemailer (decisions 16): `SMTP_URL`
 * (smtp://[user:pass@]host[:port], STARTTLS when the server offers it;
 * smtps:// for TLS from the start), from `MAIL_FROM`'s address under the
 * merchant's name. An SMTP 4xx answer or a failure before the message went
 * out (refused connection, no greeting) is temporary (tried again); a 5xx
 * is not. A timeout or a lost connection once the message may have gone
 * out is `outcomeUnknown`: the server may have taken it, so it is never
 * sent again. The timeouts are 60 s (`smtpTimeoutMs`), so a slow server is
 * waited for rather than given up on.
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
    const timeout = this.config.smtpTimeoutMs;
    this.transport ??= createTransport({
      url: this.config.smtpUrl,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    } as TransportOptions);
    const address = mailFromAddress(this.config.mailFrom);
    try {
      await this.transport.sendMail({
        from: mail.senderName ? { name: mail.senderName, address } : this.config.mailFrom,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: `<${mail.id}@joma>`,
      });
    } catch (err) {
      const e = err as {
        responseCode?: number;
        response?: string;
        code?: string;
        originalCode?: string;
        timeoutType?: string;
        message: string;
      };
      if (typeof e.responseCode === 'number') {
        throw new SendError(
          `SMTP ${e.responseCode}: ${(e.response ?? e.message).slice(0, 300)}`,
          e.responseCode < 500,
        );
      }
      const what = `SMTP: ${e.code ?? ''} ${e.message}`.trim().slice(0, 300);
      const beforeHandOver =
        e.code === 'ETIMEDOUT'
          ? BEFORE_HAND_OVER_TIMEOUTS.has(e.timeoutType ?? '')
          : BEFORE_HAND_OVER_CODES.has(e.code ?? '') ||
            BEFORE_HAND_OVER_CODES.has(e.originalCode ?? '');
      throw new SendError(what, true, !beforeHandOver);
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}
