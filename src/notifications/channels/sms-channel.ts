/** An SMS provider (decisions 16: SSL Wireless today; others can be added behind this port). */
export interface SmsProvider {
  /** The name credentials are stored under (`PATCH /admin/apps/{id}/sms/{provider}`). */
  readonly name: string;
  /** The credential fields the provider takes. */
  readonly credentialFields: readonly string[];
  /**
   * Sends `text` to a Bangladeshi mobile number (8801XXXXXXXXX, no plus).
   * `clientId` is unique per message and the same on every try of it
   * (`smsClientId`): providers that know it refuse a second send with the
   * same id, and that refusal means the first was accepted (the send
   * resolves). Throws SendError (`outcomeUnknown` when the answer was lost
   * after the request went out).
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

/**
 * The id an SMS carries to its provider (SSL Wireless's `csms_id`), derived
 * from the notification's id alone: every try of one message, after a
 * restart or on another replica, sends the same id, so the provider's
 * repeat check keeps it from going out twice. At most 20 ASCII letters and
 * digits, what SSL Wireless accepts (anything else is refused, 4020 Invalid
 * CSMS ID): `joma` and the id, whose 2^53-1 has 16 digits.
 */
export function smsClientId(notificationId: number): string {
  if (!Number.isSafeInteger(notificationId) || notificationId < 1)
    throw new Error(`Not a notification id: ${notificationId}`);
  return `joma${notificationId}`;
}

/** A Bangladeshi mobile number as stored (+8801XXXXXXXXX), in the form SMS APIs take; null for any other number. */
export function bangladeshiMsisdn(phone: string): string | null {
  const m = /^\+?(8801[3-9]\d{8})$/.exec(phone.replace(/[\s-]/g, ''));
  return m ? m[1] : null;
}
