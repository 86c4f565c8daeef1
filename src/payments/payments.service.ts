import { Injectable, Logger } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AppsService } from '../apps';
import { AuditService } from '../audit';
import { Clock } from '../common/clock/clock';
import { addDays, dhakaDate, startOfDhakaDay } from '../common/clock/dhaka-calendar';
import { randomToken } from '../common/crypto/crypto';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { CSV_BATCH_SIZE } from '../common/http/csv';
import { Page } from '../common/http/envelope';
import {
  createdRange,
  SEARCH_MATCH_LIMIT,
  type SearchScope,
  type SearchTerm,
  searchTerm,
} from '../common/http/list-filters';
import { PageQuery } from '../common/http/pagination';
import { assertMetadataSize } from '../common/http/validation';
import { assertCurrency } from '../common/money/money';
import { AppConfig } from '../config/app-config';
import { Customer, CustomersService } from '../customers';
import { isDatabaseError } from '../database/database-errors';
import { ReplicaReads } from '../database/replica-reads';
import type { TenantScope } from '../database/tenant';
import type { CheckoutSession } from '../gateways';
import { gatewayErrorText, GatewayRegistry } from '../gateways';
import { IdempotencyService } from '../idempotency';
import type { CreatePaymentDto } from './dto/payment.dto';
import { Payment } from './payment.entity';
import { PaymentConfirmationsService } from './payment-confirmations.service';
import { PaymentTransitions } from './payment-transitions';
import {
  AdminPaymentFilter,
  type PaymentFilter,
  type PaymentSearch,
  PaymentsRepository,
} from './payments.repository';

/** The payment record other features receive from this service. */
export type { Payment } from './payment.entity';

/** The payment lists' filters (GET /api/v1/payments). */
export interface PaymentListFilter {
  status?: string;
  customerId?: number;
  /** Asia/Dhaka days, both inclusive, on the creation time. */
  from?: string;
  to?: string;
  q?: string;
}

/** GET /api/v1/admin/payments: the operator's filters (`from`/`to` may be instants too). */
export type AdminPaymentQueryFilter = Omit<AdminPaymentFilter, 'range' | 'search'> & {
  from?: string;
  to?: string;
  q?: string;
};

/** A payment in an export, with its customer. */
export interface PaymentExportRow {
  payment: Payment;
  customer: Customer;
}

/** The parts of a search a payment's own columns answer. */
function directSearch(term: SearchTerm): Pick<PaymentSearch, 'id' | 'reference' | 'txnIds'> {
  return {
    id: term.id,
    reference: term.text,
    txnIds: term.upper === term.text ? [term.text] : [term.text, term.upper],
  };
}

/** The recovery point of a payment create: the PENDING payment is committed, its checkout may not be. */
const PAYMENT_CREATED = 'payment_created';

export interface OpenPaymentOptions {
  /**
   * Created by Joma's own hosted pay page for an invoice's amount due: its
   * return URLs are Joma's (no allowlist check) and the app's minimum does
   * not apply (a small remainder must stay payable); the maximum still does.
   */
  hosted?: boolean;
  /** The payment's customer when the caller already knows it (an invoice's). */
  customer?: Customer;
}

/** A payment just written PENDING, with the customer it was written for. */
export interface OpenedPayment {
  payment: Payment;
  customer: Customer;
}

/**
 * Payments: creating them (a short transaction for the PENDING row, then the
 * gateway's checkout with no transaction open), reading them, and the app's
 * cancel. Status changes go through PaymentTransitions; what gateways report
 * through PaymentConfirmationsService.
 */
@Injectable()
export class PaymentsService {
  private readonly logger = new Logger('Payments');

  constructor(
    private readonly payments: PaymentsRepository,
    private readonly transitions: PaymentTransitions,
    private readonly apps: AppsService,
    private readonly customers: CustomersService,
    private readonly gateways: GatewayRegistry,
    private readonly idempotency: IdempotencyService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly confirmations: PaymentConfirmationsService,
    private readonly audit: AuditService,
    private readonly reads: ReplicaReads,
  ) {}

  /**
   * Taka collected per Asia/Dhaka day over the last `days` days, today
   * included, oldest first; a day without a capture is there with 0. The
   * gross half of GET /reports/daily-collections (the ledger's
   * DailyCollectionsService adds each day's refunds).
   */
  async dailyCollections(
    scope: TenantScope,
    days: number,
  ): Promise<{ date: string; collectedMinor: number; payments: number }[]> {
    const today = dhakaDate(this.clock.nowMs());
    const first = addDays(today, -(days - 1));
    const found = new Map(
      (
        await this.payments.dailyCollections(
          scope,
          new Date(startOfDhakaDay(first)),
          new Date(startOfDhakaDay(addDays(today, 1))),
        )
      ).map((d) => [d.date, d]),
    );
    return Array.from({ length: days }, (_, i) => {
      const date = addDays(first, i);
      return found.get(date) ?? { date, collectedMinor: 0, payments: 0 };
    });
  }

  /** Whether the app can take a payment of this mode now (a gateway it can use serves the mode). */
  canCollect(scope: TenantScope): Promise<boolean> {
    return this.gateways.canCollect(scope);
  }

  /**
   * The gateways a payment of the app can go through now (of `amountMinor`,
   * when given: only those whose limits admit it), the app's default first.
   */
  gatewayChoices(scope: TenantScope, amountMinor?: number): Promise<string[]> {
    return this.gateways.choicesFor(scope, amountMinor);
  }

  /**
   * The payment an earlier attempt of this idempotent request committed
   * before it died (its checkout perhaps not opened yet); null otherwise.
   */
  async resumed(scope: TenantScope): Promise<Payment | null> {
    const point = this.idempotency.recovered<{ paymentId: number }>(PAYMENT_CREATED);
    return point ? this.payments.get(scope, point.paymentId) : null;
  }

  /**
   * The first step of a payment: validated, written PENDING with no
   * checkout yet, in the caller's transaction (or a short one of its own),
   * with the idempotency recovery point in that same transaction.
   */
  @Transactional()
  async openPending(
    scope: TenantScope,
    input: CreatePaymentDto,
    opts: OpenPaymentOptions = {},
  ): Promise<OpenedPayment> {
    const currency = assertCurrency(input.currency);
    const app = await this.apps.settingsOf(scope.appId);
    if (
      (!opts.hosted && input.amountMinor < app.minAmountMinor) ||
      input.amountMinor > app.maxAmountMinor
    ) {
      throw new AppError(
        ErrorCode.AMOUNT_OUT_OF_RANGE,
        `amountMinor must be between ${app.minAmountMinor} and ${app.maxAmountMinor} for this app`,
      );
    }
    if (!opts.hosted) {
      this.apps.assertRedirectsAllowed(app, {
        successUrl: input.successUrl,
        failUrl: input.failUrl,
        cancelUrl: input.cancelUrl,
      });
    }
    assertMetadataSize(input.metadata);
    const gateway = await this.gateways.forApp(scope, input.gateway, input.amountMinor);
    const customer = opts.customer
      ? this.sameCustomer(opts.customer, input.customerReference)
      : await this.customers.findOrCreate(scope, input.customerReference!, {
          name: input.customerName,
          email: input.customerEmail,
          phone: input.customerPhone,
        });
    const now = this.clock.now();
    const payment = await this.payments.insert({
      ...scope,
      reference: `pay_${randomToken(18)}`,
      status: 'PENDING',
      amountMinor: input.amountMinor,
      excessMinor: 0,
      amountRefundedMinor: 0,
      riskLevel: 'NORMAL',
      failureReason: null,
      currency,
      gateway: gateway.name,
      gatewaySessionId: null,
      checkoutUrl: null,
      gatewayTxnId: null,
      paymentMethod: null,
      paymentMethodLabel: null,
      paymentMethodBrand: null,
      paymentMethodIssuer: null,
      paymentMethodAccount: null,
      successUrl: input.successUrl ?? app.defaultSuccessUrl,
      failUrl: input.failUrl ?? app.defaultFailUrl,
      cancelUrl: input.cancelUrl ?? app.defaultCancelUrl,
      customerId: customer.id,
      invoiceId: input.invoiceId ?? null,
      description: input.description ?? null,
      metadata: input.metadata ?? null,
      expiresAt: new Date(now.getTime() + app.paymentExpiryMinutes * 60_000),
      succeededAt: null,
      statusCheckedAt: null,
      checkoutOpenUntil: null,
      createdAt: now,
      updatedAt: now,
    });
    await this.idempotency.checkpoint(PAYMENT_CREATED, { paymentId: payment.id });
    // An admin acting on the app through the app routes (section 15): audited in this
    // transaction. A payment tells apps of nothing until it settles, so no event does it.
    await this.audit.record({
      action: 'payment.created',
      targetType: 'payment',
      targetId: payment.id,
      after: {
        applicationId: scope.appId,
        mode: scope.mode,
        amountMinor: payment.amountMinor,
        invoiceId: payment.invoiceId,
      },
      adminOnly: true,
    });
    return { payment, customer };
  }

  /**
   * For refunds: the payment, row-locked until the caller's transaction ends
   * (so concurrent refunds of it queue up and each sees the others), 404
   * outside the scope, 409 unless it SUCCEEDED.
   */
  async lockForRefund(scope: TenantScope, id: number): Promise<Payment> {
    const payment = await this.payments.getForUpdate(scope, id);
    if (payment.status !== 'SUCCEEDED')
      throw AppError.invalidState(
        `Only a succeeded payment can be refunded; this one is ${payment.status.toLowerCase()}`,
      );
    return payment;
  }

  /**
   * For settlement reports: whose payment each reference is, whatever its
   * status (a capture the gateway reports but Joma has not recorded is a
   * reconciliation exception of that app, not a line to drop).
   */
  async ownersByReference(
    references: string[],
  ): Promise<Map<string, Pick<Payment, 'appId' | 'mode' | 'currency'>>> {
    const rows = await this.payments.ownersByReferences([...new Set(references)]);
    return new Map(rows.map((r) => [r.reference, r]));
  }

  /** How many of the app's payments in the mode are PENDING at the gateway (they still need its credentials). */
  countPendingAtGateway(scope: TenantScope, gateway: string): Promise<number> {
    return this.payments.countPendingAtGateway(scope, gateway);
  }

  /** A refund of the payment succeeded at the gateway (in the refund's transaction). */
  recordRefunded(paymentId: number, amountMinor: number): Promise<void> {
    return this.payments.addRefunded(paymentId, amountMinor);
  }

  /** The invoice's customer pays its invoice; naming another is a mistake (400). */
  private sameCustomer(customer: Customer, reference?: string): Customer {
    if (reference !== undefined && reference !== customer.externalId) {
      throw AppError.validation(
        'customerReference',
        "customerReference must be the invoice's customer (or be left out)",
      );
    }
    return customer;
  }

  /**
   * The second step: asks the gateway for a checkout with no transaction
   * open, then attaches it in a short one. Two callers racing on one payment
   * (a double click, a resumed request) end with one checkout: the loser's
   * is closed. A gateway that cannot open one fails the payment (503); Joma's
   * own database failing on the way is a 503 that leaves the payment PENDING.
   */
  async openCheckout(payment: Payment, known?: Customer): Promise<Payment> {
    if (payment.gatewaySessionId || payment.status !== 'PENDING') return payment;
    const scope = { appId: payment.appId, mode: payment.mode };
    const gateway = this.gateways.get(payment.gateway);
    const app = await this.apps.settingsOf(scope.appId);
    const customer = known ?? (await this.customers.get(scope, payment.customerId));
    let session: CheckoutSession;
    try {
      const ctx = await this.gateways.context(scope, gateway.name);
      session = await gateway.checkout.createCheckout(
        {
          reference: payment.reference,
          amountMinor: payment.amountMinor,
          currency: payment.currency,
          description: payment.description,
          merchantName: app.name,
          customer: {
            reference: customer.externalId,
            name: customer.name,
            email: customer.email,
            phone: customer.phone,
          },
          returnUrl: `${this.config.publicBaseUrl}/api/v1/gateways/${gateway.name}/return`,
          ipnUrl: `${this.config.publicBaseUrl}/api/v1/gateways/${gateway.name}/ipn`,
          expiresAt: payment.expiresAt,
        },
        ctx,
      );
    } catch (err) {
      // Joma's own database failing inside the adapter (the sandbox keeps its
      // sessions there, credentials are read from it): not the gateway's
      // answer. The payment stays PENDING with its recovery point and nothing
      // is noted against the gateway; the request answers 503 and a retry
      // with its Idempotency-Key resumes this payment.
      if (isDatabaseError(err)) throw err;
      // The gateway's own code and message (adapters never put credentials in them).
      const reason = gatewayErrorText(err);
      this.logger.warn(
        `${gateway.name} could not open a checkout for payment ${payment.id}: ${reason}`,
      );
      await this.gateways.noteError(scope, gateway.name, reason);
      await this.failWithoutCheckout(payment.id, reason);
      throw new AppError(
        ErrorCode.SERVICE_UNAVAILABLE,
        `The ${gateway.name} gateway could not open a checkout; payment ${payment.id} is FAILED. Try again.`,
      );
    }
    await this.gateways.noteSuccess(scope, gateway.name);
    const attached = await this.payments.attachCheckout(payment.id, session, this.clock.now());
    if (attached) return attached;
    await this.closeSession(payment, session.sessionId);
    return (await this.payments.byId(payment.id))!;
  }

  @Transactional()
  private async failWithoutCheckout(id: number, reason: string): Promise<void> {
    const payment = await this.payments.lockById(id);
    if (payment?.status === 'PENDING' && !payment.gatewaySessionId) {
      payment.failureReason = `Could not open a checkout: ${reason}`;
      await this.transitions.apply(payment, 'fail');
    }
    // The payment is over: a retry with the same Idempotency-Key opens a new one.
    await this.idempotency.clearCheckpoint();
  }

  /** By the public reference (result page); not scoped, the reference is the capability. */
  findByReference(reference: string): Promise<Payment | null> {
    if (!/^pay_[A-Za-z0-9_-]{10,64}$/.test(reference)) return Promise.resolve(null);
    return this.payments.byReference(reference);
  }

  get(scope: TenantScope, id: number): Promise<Payment> {
    return this.payments.get(scope, id);
  }

  async list(
    scope: TenantScope,
    query: PageQuery,
    filter: PaymentListFilter = {},
  ): Promise<Page<Payment>> {
    // A list: on the read replica once it has caught up (docs/operations.md, "A read replica").
    return this.reads.read(async () =>
      this.payments.page(scope, query, await this.filterOf(scope, filter)),
    );
  }

  async listForCustomer(
    scope: TenantScope,
    externalId: string,
    query: PageQuery,
  ): Promise<Page<Payment>> {
    const customer = await this.customers.getByExternalId(scope, externalId);
    return this.list(scope, query, { customerId: customer.id });
  }

  /** Admin search across apps and modes; `excess` keeps only captures with an excess. */
  async adminSearch(query: AdminPaymentQueryFilter & PageQuery): Promise<Page<Payment>> {
    return this.reads.read(async () =>
      this.payments.adminPage(query, await this.adminFilterOf(query)),
    );
  }

  /**
   * Every payment the list's filters select, for a CSV export: how many
   * (counting at most `limit + 1`), and the rows with their customers, in
   * batches, newest first.
   */
  async exportOf(
    scope: TenantScope,
    filter: PaymentListFilter,
    limit: number,
  ): Promise<{ count: number; batches: AsyncIterable<PaymentExportRow[]> }> {
    // The batches' statements run on the connection the export was built on.
    return this.reads.read(async () => {
      const source = this.payments.exportOf(scope, await this.filterOf(scope, filter));
      return {
        count: await source.count(limit),
        batches: this.exportRows(source.batches(CSV_BATCH_SIZE)),
      };
    });
  }

  /** Every payment an operator's search selects, for a CSV export. */
  async adminExportOf(
    query: AdminPaymentQueryFilter,
    limit: number,
  ): Promise<{ count: number; batches: AsyncIterable<PaymentExportRow[]> }> {
    return this.reads.read(async () => {
      const source = this.payments.adminExportOf(await this.adminFilterOf(query));
      return {
        count: await source.count(limit),
        batches: this.exportRows(source.batches(CSV_BATCH_SIZE)),
      };
    });
  }

  private async *exportRows(batches: AsyncIterable<Payment[]>): AsyncGenerator<PaymentExportRow[]> {
    for await (const batch of batches) {
      const customers = await this.customers.byIds(batch.map((p) => p.customerId));
      yield batch.map((payment) => ({ payment, customer: customers.get(payment.customerId)! }));
    }
  }

  /**
   * What the payment lists' `q` names (decisions section 20): a payment id,
   * reference or gateway transaction id, or customers by reference, email
   * or phone. Null without `q`.
   */
  async searchFor(where: SearchScope, q: string | undefined): Promise<PaymentSearch | null> {
    const term = searchTerm(q);
    if (!term) return null;
    return { ...directSearch(term), customerIds: await this.customers.idsMatching(where, term) };
  }

  /** Ids of the payments a search term names by id, reference or gateway transaction id (other lists' `q`). */
  async idsMatching(where: SearchScope, term: SearchTerm): Promise<number[]> {
    const rows = await this.payments.matching(where, directSearch(term), SEARCH_MATCH_LIMIT);
    return rows.map((r) => r.id);
  }

  /** Invoices that a payment the search term names by id, reference or transaction id was made on. */
  async invoiceIdsMatching(where: SearchScope, term: SearchTerm): Promise<number[]> {
    const rows = await this.payments.matching(where, directSearch(term), SEARCH_MATCH_LIMIT);
    return [...new Set(rows.flatMap((r) => (r.invoiceId === null ? [] : [r.invoiceId])))];
  }

  private async filterOf(scope: TenantScope, filter: PaymentListFilter): Promise<PaymentFilter> {
    return {
      status: filter.status,
      customerId: filter.customerId,
      range: createdRange(filter.from, filter.to),
      search: await this.searchFor(scope, filter.q),
    };
  }

  private async adminFilterOf(query: AdminPaymentQueryFilter): Promise<AdminPaymentFilter> {
    const range = createdRange(query.from, query.to);
    return {
      applicationId: query.applicationId,
      mode: query.mode,
      status: query.status,
      excess: query.excess,
      risk: query.risk,
      gateway: query.gateway,
      appIds: query.appIds,
      range,
      search: await this.searchFor(
        { appId: query.applicationId, appIds: query.appIds, mode: query.mode },
        query.q,
      ),
    };
  }

  /** Payments of several invoices at once (one query), oldest first. */
  forInvoices(scope: TenantScope, invoiceIds: number[]): Promise<Payment[]> {
    return this.payments.ofInvoices(scope, invoiceIds);
  }

  /** What the invoice's PENDING payments hold: money that may still arrive. */
  openOfInvoice(scope: TenantScope, invoiceId: number): Promise<Payment[]> {
    return this.payments.openOfInvoice(scope, invoiceId);
  }

  /** The invoice's PENDING payments before their deadline: what they reserve of it (see countPendingOfInvoice). */
  async reservingOfInvoice(scope: TenantScope, invoiceId: number): Promise<Payment[]> {
    const now = this.clock.nowMs();
    return (await this.payments.openOfInvoice(scope, invoiceId)).filter(
      (p) => p.expiresAt.getTime() > now,
    );
  }

  /** An open payment of the invoice for exactly this amount, to reuse instead of opening another checkout. */
  openPaymentFor(
    scope: TenantScope,
    invoiceId: number,
    amountMinor: number,
    gateway?: string,
  ): Promise<Payment | null> {
    return this.payments.openForAmount(scope, invoiceId, amountMinor, this.clock.now(), gateway);
  }

  /**
   * How many open checkouts the invoice has: PENDING payments before their
   * deadline (one past it whose gateway did not answer stays PENDING, but
   * no longer holds the invoice: a capture it still gets counts as excess).
   */
  countPendingOfInvoice(scope: TenantScope, invoiceId: number): Promise<number> {
    return this.payments.countPendingOfInvoice(scope, invoiceId, this.clock.now());
  }

  /**
   * App-requested cancel: only a PENDING payment; cancelling twice is a
   * no-op. The gateway is asked about the checkout first, with nothing
   * locked: a capture it reports is recorded, and the cancel is then 409
   * with the payment SUCCEEDED (decisions section 13: a capture that lands
   * just before a cancel is never lost). Once the cancel is committed the
   * checkout is closed where the gateway allows it; one it does not confirm
   * closed is asked about for 72 hours, and a capture that still arrives
   * is recorded.
   */
  async cancel(scope: TenantScope, id: number): Promise<Payment> {
    await this.captureBeforeClosing([await this.payments.get(scope, id)]);
    const payment = await this.cancelLocked(scope, id);
    await this.closeCheckouts([payment]);
    return payment;
  }

  /**
   * Before payments are cancelled (a cancel, a void): asks each PENDING
   * one's gateway, with nothing locked, and records a capture it reports.
   * A gateway that cannot answer delays nothing: the cancelled checkout is
   * then asked about later (`checkoutOpenUntil`).
   */
  async captureBeforeClosing(payments: readonly Payment[]): Promise<void> {
    for (const p of payments)
      if (p.status === 'PENDING' && p.gatewaySessionId)
        await this.confirmations.settleIfCaptured(p);
  }

  @Transactional()
  private async cancelLocked(scope: TenantScope, id: number): Promise<Payment> {
    const payment = await this.payments.getForUpdate(scope, id);
    const result = await this.transitions.apply(payment, 'cancel');
    if (result.invalid) throw AppError.invalidState(result.invalid);
    return result.payment;
  }

  /**
   * Locks (FOR UPDATE, in id order) the PENDING payments of an invoice. Lock
   * order is payments before their invoice: a confirmation holds its payment
   * when it reaches the invoice, so the other order deadlocks with it.
   */
  lockOpenForInvoice(scope: TenantScope, invoiceId: number): Promise<Payment[]> {
    return this.payments.openOfInvoice(scope, invoiceId, true);
  }

  /** Cancels every PENDING payment of an invoice (the invoice is being voided); returns them. */
  async cancelOpenForInvoice(scope: TenantScope, invoiceId: number): Promise<Payment[]> {
    const open = await this.lockOpenForInvoice(scope, invoiceId);
    for (const p of open) await this.transitions.apply(p, 'cancel');
    return open;
  }

  /**
   * Closes the gateway checkouts of cancelled payments (an explicit cancel or
   * a voided invoice), after the cancel: no row lock is held during the
   * calls. Expiry never closes a checkout (a late payment revives).
   */
  async closeCheckouts(payments: Payment[]): Promise<void> {
    for (const p of payments) {
      if (p.status !== 'CANCELLED' || !p.gatewaySessionId) continue;
      // Confirmed closed: no payment can reach it, nothing left to ask about.
      if (await this.closeSession(p, p.gatewaySessionId)) await this.payments.checkoutClosed(p.id);
    }
  }

  /** True when the gateway confirms the checkout closed. */
  private async closeSession(payment: Payment, sessionId: string): Promise<boolean> {
    const gateway = this.gateways.get(payment.gateway);
    if (!gateway.checkout.closeCheckout) return false;
    try {
      const ctx = await this.gateways.context(payment, payment.gateway);
      return await gateway.checkout.closeCheckout(sessionId, ctx);
    } catch (err) {
      this.logger.warn(
        `Could not close a checkout of payment ${payment.id}: ${(err as Error).name}`,
      );
      return false;
    }
  }
}
