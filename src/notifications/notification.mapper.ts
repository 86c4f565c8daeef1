import type { NotificationDto } from './dto/notification.dto';
import type { Notification } from './notification.entity';

/** A LIVE payer's contact as the API shows it: enough to recognise, not to harvest. */
export function maskRecipient(to: string): string {
  const at = to.indexOf('@');
  if (at > 0) return `${to[0]}***${to.slice(at)}`;
  return to.length > 8 ? `${to.slice(0, 4)}${'*'.repeat(to.length - 7)}${to.slice(-3)}` : '***';
}

export function toNotificationDto(n: Notification): NotificationDto {
  return {
    id: Number(n.id),
    channel: n.channel,
    kind: n.kind,
    to: n.mode === 'LIVE' ? maskRecipient(n.recipient) : n.recipient,
    status: n.status,
    invoiceId: n.invoiceId,
    paymentId: n.paymentId,
    subscriptionId: n.subscriptionId,
    language: n.language,
    subject: n.subject,
    text: n.bodyText,
    attempts: n.attempts,
    lastError: n.lastError,
    createdAt: n.createdAt.toISOString(),
    sentAt: n.sentAt ? n.sentAt.toISOString() : null,
  };
}
