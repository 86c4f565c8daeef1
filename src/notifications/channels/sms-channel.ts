/** An SMS provider (decisions 16: SSL Wireless today; others can be added behind this port). */
export interface SmsProvider {
  /** The name credentials are stored under (`PATCH /admin/apps/{id}/sms/{provider}`). */
  readonly name: string;
  /** The credential fields the provider takes. */
  readonly credentialFields: readonly string[];
  /**
   * Sends `text` to a Bangladeshi mobile number (8801XXXXXXXXX, no plus).
   * `clientId` is unique per message: providers that know it refuse a second
   * send with the same id, and that refusal means the first was accepted
   * (the send resolves). Throws SendError (`outcomeUnknown` when the answer
   * was lost after the request went out).
   */
  send(
    credentials: Record<string, string>,
    to: string,
    text: string,
    clientId: string,
  ): Promise<void>;
  /**
   * Whether a message whose first unknown-outcome try was at `firstUnknownAt`
   * may be asked for again at `now` under the same `clientId`: only while
   * the provider still refuses that id as a repeat. Absent: never (the
   * message ends FAILED, outcome unknown).
   */
  canAskAgain?(firstUnknownAt: Date, now: Date): boolean;
}

export const SMS_PROVIDER = Symbol('SMS_PROVIDER');

/** A Bangladeshi mobile number as stored (+8801XXXXXXXXX), in the form SMS APIs take; null for any other number. */
export function bangladeshiMsisdn(phone: string): string | null {
  const m = /^\+?(8801[3-9]\d{8})$/.exec(phone.replace(/[\s-]/g, ''));
  return m ? m[1] : null;
}
