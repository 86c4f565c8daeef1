import { Injectable } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { SendError } from './send-error';
import type { SmsProvider } from './sms-channel';

interface SslWirelessReply {
  status?: string;
  status_code?: number;
  error_message?: string;
}

/**
 * SSL Wireless's SMS API v3 (`POST {SSLWIRELESS_SMS_URL}/api/v3/send-sms`,
 * JSON `api_token`, `sid`, `msisdn`, `sms`, `csms_id`): the app's own
 * `apiToken` and `sid`. `csms_id` is unique per message, and SSL Wireless
 * refuses a repeated one, so a retry never sends twice. Bangla goes as
 * Unicode (the API picks UCS-2 itself). A 5xx, a timeout or a refused
 * connection is temporary; a FAILED answer is not.
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
      throw new SendError(`SSL Wireless unreachable: ${(err as Error).message}`, true);
    }
    const reply = (await res.json().catch(() => ({}))) as SslWirelessReply;
    if (res.status >= 500)
      throw new SendError(
        `SSL Wireless HTTP ${res.status}: ${reply.error_message ?? ''}`.trim(),
        true,
      );
    if (!res.ok || reply.status !== 'SUCCESS') {
      throw new SendError(
        `SSL Wireless ${reply.status_code ?? res.status}: ${reply.error_message ?? reply.status ?? 'refused'}`,
        false,
      );
    }
  }
}
