import { Injectable } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { SendError } from './send-error';
import type { SmsProvider } from './sms-channel';

interface SslWirelessReply {
  status?: string;
  status_code?: number | string;
  error_message?: string;
  smsinfo?: { sms_status?: string; csms_id?: string }[];
}

/**
 * SSL Wireless's published status code for a `csms_id` it has taken before
 * ("Duplicate CSMS ID"); 4025 is "Invalid MSISDN".
 */
export const SSLWIRELESS_DUPLICATE_CSMS_ID = 4023;

/** Failures that happen before the request leaves: SSL Wireless never saw it. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const day = (at: Date, offsetMs: number) =>
  new Date(at.getTime() + offsetMs).toISOString().slice(0, 10);

/**
 * SSL Wireless's SMS API v3 (`POST {SSLWIRELESS_SMS_URL}/api/v3/send-sms`,
 * JSON `api_token`, `sid`, `msisdn`, `sms`, `csms_id`): the app's own
 * `apiToken` and `sid`. `csms_id` is unique per message (`smsClientId`: at
 * most 20 letters and digits, else 4020 Invalid CSMS ID), and SSL Wireless
 * refuses a repeated one within a day (status code 4023, or a `DUPLICATE`
 * entry in `smsinfo`): that refusal means the first send was accepted, so
 * it is a success, and a try whose answer was lost can be asked again the
 * same day without sending twice. Bangla goes as Unicode (the API picks
 * UCS-2 itself). A refused connection is temporary; a timeout, a lost
 * answer or a 5xx is temporary with the outcome unknown; a FAILED answer
 * is not temporary.
 */
@Injectable()
export class SslWirelessSms implements SmsProvider {
  readonly name = 'sslwireless';
  readonly credentialFields = ['apiToken', 'sid'] as const;

  constructor(private readonly config: AppConfig) {}

  async send(
    credentials: Record<string, string>,
    to: string,
    text: string,
    clientId: string,
  ): Promise<void> {
    let res: Response;
    try {
      res = await fetch(`${this.config.sslwirelessSmsUrl}/api/v3/send-sms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          api_token: credentials.apiToken,
          sid: credentials.sid,
          msisdn: to,
          sms: text,
          csms_id: clientId,
        }),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      const code = (err as { cause?: { code?: string } }).cause?.code;
      const sent = !code || !NOT_SENT.has(code);
      throw new SendError(
        `SSL Wireless unreachable: ${(err as Error).message}${code ? ` (${code})` : ''}`,
        true,
        sent,
      );
    }
    let reply: SslWirelessReply;
    try {
      reply = (await res.json()) as SslWirelessReply;
    } catch (err) {
      // The answer was cut off or unreadable: whether it was taken is unknown.
      if (res.ok || res.status >= 500)
        throw new SendError(`SSL Wireless answer lost: ${(err as Error).message}`, true, true);
      reply = {};
    }
    if (res.status >= 500)
      throw new SendError(
        `SSL Wireless HTTP ${res.status}: ${reply.error_message ?? ''}`.trim(),
        true,
        true,
      );
    const entry = reply.smsinfo?.find((i) => !i.csms_id || i.csms_id === clientId);
    if (
      Number(reply.status_code) === SSLWIRELESS_DUPLICATE_CSMS_ID ||
      entry?.sms_status === 'DUPLICATE'
    )
      return; // sent before under this csms_id: the payer has it
    if (!res.ok || reply.status !== 'SUCCESS' || (entry && entry.sms_status !== 'SUCCESS')) {
      throw new SendError(
        `SSL Wireless ${reply.status_code ?? res.status}: ${reply.error_message || entry?.sms_status || reply.status || 'refused'}`,
        false,
      );
    }
  }

  /**
   * A `csms_id` is refused as a repeat within a day: asked again only on the
   * day (in Dhaka and in UTC alike, whichever SSL Wireless counts) of the
   * first try whose outcome was unknown.
   */
  canAskAgain(firstUnknownAt: Date, now: Date): boolean {
    return (
      day(firstUnknownAt, 0) === day(now, 0) &&
      day(firstUnknownAt, 6 * 3600_000) === day(now, 6 * 3600_000)
    );
  }
}
