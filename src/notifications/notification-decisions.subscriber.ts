import { Inject, Injectable } from '@nestjs/common';

import { AppsService } from '../apps';
import { Clock } from '../common/clock/clock';
import { OnDomainEvent } from '../common/domain-events';
import type { TenantScope } from '../database/tenant';
import {
  amountDueOf,
  InvoiceIssued,
  InvoicesService,
  InvoiceTemplatesService,
  type InvoiceView,
} from '../invoices';
import { CaptureSettled } from '../payments';
import { DunningReminderDue, SubscriptionFact } from '../subscriptions';
import { EmailChannel } from './channels/email-channel';
import { bangladeshiMsisdn, SMS_PROVIDER, type SmsProvider } from './channels/sms-channel';
import type { Language, NotificationChannel, NotificationKind } from './notification.entity';
import { type MessageFacts, renderMessage } from './notification-messages';
import { NotificationMetrics } from './notification-metrics';
import { type NewNotification, NotificationsRepository } from './notifications.repository';
import { SmsCredentialsService } from './sms-credentials.service';

interface Decision {
  kind: NotificationKind;
  /** One message per fact and channel: what the fact is. */
  factKey: string;
  view: InvoiceView;
  amountMinor: number;
  link: string;
  paymentId?: number;
  subscriptionId?: number | null;
  transactionId?: string | null;
  paidAt?: Date;
  trialEndDate?: string | null;
}

/**
 * Decides the messages to payers (decisions section 16) in the transaction
 * of the fact that calls for them: a receipt per capture on an invoice
 * (receiptsEnabled), the invoice with its pay link when it was asked for
 * (notifyCustomer), a dunning reminder (dunningEnabled), a trial-ending
 * notice. One row per channel the payer can be reached on: CAPTURED in TEST
 * (nothing is sent), QUEUED in LIVE when the channel is configured, else
 * SKIPPED with the reason. A kind that is switched off leaves no record.
 */
@Injectable()
export class NotificationDecisions {
  constructor(
    private readonly repo: NotificationsRepository,
    private readonly invoices: InvoicesService,
    private readonly templates: InvoiceTemplatesService,
    private readonly apps: AppsService,
    private readonly email: EmailChannel,
    private readonly sms: SmsCredentialsService,
    @Inject(SMS_PROVIDER) private readonly smsProvider: SmsProvider,
    private readonly metrics: NotificationMetrics,
    private readonly clock: Clock,
  ) {}

  /** A receipt for what the invoice counted of a capture (nothing counted, e.g. already paid or another amount: no receipt). */
  @OnDomainEvent(CaptureSettled)
  async onCaptureSettled(settled: CaptureSettled): Promise<void> {
    const payment = settled.payment;
    if (payment.invoiceId === null || settled.countedMinor === 0) return;
    if (!(await this.apps.settingsOf(settled.scope.appId)).receiptsEnabled) return;
    const view = await this.invoices.get(settled.scope, payment.invoiceId);
    await this.decide(settled.scope, {
      kind: 'RECEIPT',
      factKey: `receipt:payment:${payment.id}`,
      view,
      amountMinor: settled.countedMinor,
      link: `${view.payableUrl}/receipt`,
      paymentId: payment.id,
      transactionId: payment.gatewayTxnId,
      paidAt: payment.succeededAt ?? this.clock.now(),
    });
  }

  @OnDomainEvent(InvoiceIssued)
  async onIssued(fact: InvoiceIssued): Promise<void> {
    if (!fact.invoice.notifyCustomer) return;
    const view = await this.invoices.get(fact.scope, fact.invoice.id);
    await this.decide(fact.scope, {
      kind: 'INVOICE',
      factKey: `invoice:invoice:${fact.invoice.id}`,
      view,
      amountMinor: amountDueOf(view.invoice),
      link: view.payableUrl,
      subscriptionId: view.invoice.subscriptionId,
    });
  }

  @OnDomainEvent(SubscriptionFact)
  async onSubscription(fact: SubscriptionFact): Promise<void> {
    if (fact.type !== 'subscription.trial_will_end') return;
    const sub = fact.subscription;
    if (sub.openInvoiceId === null) return;
    const view = await this.invoices.get(fact.scope, sub.openInvoiceId);
    await this.decide(fact.scope, {
      kind: 'TRIAL_ENDING',
      factKey: `trial:subscription:${sub.id}`,
      view,
      amountMinor: amountDueOf(view.invoice),
      link: view.payableUrl,
      subscriptionId: sub.id,
      trialEndDate: sub.trialEndDate,
    });
  }

  @OnDomainEvent(DunningReminderDue)
  async onReminder(fact: DunningReminderDue): Promise<void> {
    if (!(await this.apps.settingsOf(fact.scope.appId)).dunningEnabled) return;
    const view = await this.invoices.get(fact.scope, fact.invoiceId);
    if (view.invoice.status !== 'ISSUED' && view.invoice.status !== 'PARTIALLY_PAID') return;
    await this.decide(fact.scope, {
      kind: 'DUNNING_REMINDER',
      factKey: `dunning:invoice:${fact.invoiceId}:${fact.reminder}`,
      view,
      amountMinor: amountDueOf(view.invoice),
      link: view.payableUrl,
      subscriptionId: fact.subscription.id,
    });
  }

  private async decide(scope: TenantScope, d: Decision): Promise<void> {
    const { customer, invoice } = d.view;
    const contacts: [NotificationChannel, string][] = [];
    if (customer.email) contacts.push(['EMAIL', customer.email]);
    if (customer.phone) contacts.push(['SMS', customer.phone]);
    if (contacts.length === 0) return;
    const template = await this.templates.get(scope);
    const language = d.view.language;
    const merchant = template?.companyName || d.view.appName;
    const facts: MessageFacts = {
      kind: d.kind,
      language,
      merchant,
      invoiceNumber: invoice.number,
      amountMinor: d.amountMinor,
      dueDate: invoice.dueDate,
      // The page opens in the message's language, whatever the payer's browser says.
      link: withLang(d.link, language),
      transactionId: d.transactionId,
      paidAt: d.paidAt,
      trialEndDate: d.trialEndDate,
      logoUrl: template?.logoUrl,
      accentColor: template?.accentColor,
    };
    const message = renderMessage(facts);
    const now = this.clock.now();
    const rows: NewNotification[] = [];
    for (const [channel, to] of contacts) {
      const { status, reason } = await this.statusFor(scope, channel, to);
      rows.push({
        appId: scope.appId,
        mode: scope.mode,
        factKey: d.factKey,
        channel,
        kind: d.kind,
        recipient: channel === 'SMS' ? (bangladeshiMsisdn(to) ?? to) : to,
        status,
        invoiceId: invoice.id,
        paymentId: d.paymentId ?? null,
        subscriptionId: d.subscriptionId ?? invoice.subscriptionId ?? null,
        language,
        subject: channel === 'EMAIL' ? message.subject : null,
        bodyText: channel === 'EMAIL' ? message.text : message.sms,
        bodyHtml: channel === 'EMAIL' ? message.html : null,
        senderName: channel === 'EMAIL' ? merchant : null,
        nextAttemptAt: status === 'QUEUED' ? now : null,
        createdAt: now,
        lastError: reason,
      });
      this.metrics.messages.labels(channel, status).inc();
    }
    await this.repo.decide(rows);
  }

  /** TEST: CAPTURED, always. LIVE: QUEUED when the channel can carry it, else SKIPPED with why. */
  private async statusFor(
    scope: TenantScope,
    channel: NotificationChannel,
    to: string,
  ): Promise<{ status: 'CAPTURED' | 'QUEUED' | 'SKIPPED'; reason: string | null }> {
    if (channel === 'SMS' && !bangladeshiMsisdn(to))
      return { status: 'SKIPPED', reason: 'Not a Bangladeshi mobile number' };
    if (scope.mode === 'TEST') return { status: 'CAPTURED', reason: null };
    if (channel === 'EMAIL')
      return this.email.configured
        ? { status: 'QUEUED', reason: null }
        : { status: 'SKIPPED', reason: 'No email channel: SMTP_URL is not set' };
    return (await this.sms.configured(scope, this.smsProvider.name))
      ? { status: 'QUEUED', reason: null }
      : {
          status: 'SKIPPED',
          reason: `No SMS channel: no ${this.smsProvider.name} credentials for this app and mode`,
        };
  }
}

/** `link` with `?lang=` of the message's language (any query it had kept). */
export function withLang(link: string, language: Language): string {
  const url = new URL(link);
  url.searchParams.set('lang', language);
  return url.toString();
}
