import { Injectable, Logger } from '@nestjs/common';
import { In } from 'typeorm';
import { TransactionHost, Transactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AppsService } from '../apps/apps.service';
import { Clock } from '../common/clock/clock';
import { randomToken } from '../common/crypto/crypto';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import { assertMetadataSize } from '../common/http/validation';
import { assertCurrency } from '../common/money/money';
import { AppConfig } from '../config/app-config';
import { CustomersService } from '../customers/customers.service';
import { TenantRepo, TenantScope } from '../database/tenant';
import { EventsService } from '../events/events.service';
import { GatewaysService } from '../gateways/gateways.service';
import type { GatewayOutcome, VerifiedStatus } from '../gateways/payment-gateway.types';
import type { CreatePaymentDto, PaymentDto } from './dto/payment.dto';
import type { InvoiceLink } from './invoice-link.types';
import { Payment } from './payment.entity';
import { paymentEventData, toPaymentDto } from './payment.mapper';
import { PaymentTrigger, transition } from './payment-state';

/** The payment record other features receive from this service. */
export type { Payment } from './payment.entity';

/** How a (simulated) customer finishes a checkout. */
export type SettleOutcome = 'succeeded' | 'failed' | 'cancelled';
const SETTLE_TRIGGER: Record<SettleOutcome, PaymentTrigger> = {
  succeeded: 'capture',
  failed: 'fail',
  cancelled: 'cancel',
};

const TRIGGER_OF: Record<Exclude<GatewayOutcome, 'open'>, PaymentTrigger> = {
  captured: 'capture',
  failed: 'fail',
  cancelled: 'cancel',
};

export interface CreatePaymentOptions {
  /**
   * Created by Joma's own hosted pay page for an invoice's amount due: its
   * return URLs are Joma's (no allowlist check) and the app's minimum does
   * not apply (a small remainder must stay payable); the maximum still does.
   */
  hosted?: boolean;
}

export type ApplyResult = { payment: Payment; changed: boolean; invalid?: string };

@Injectable()
export class PaymentsService {
  private readonly logger = new Logger('Payments');
  private readonly payments: TenantRepo<Payment>;
  private invoiceLink: InvoiceLink | null = null;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly apps: AppsService,
    private readonly customers: CustomersService,
    private readonly gateways: GatewaysService,
    private readonly events: EventsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.payments = new TenantRepo(txHost, Payment, 'Payment');
  }
  /** Whether a payment of this mode can be taken now (a gateway serves the mode). */
  canCollect(mode: 'TEST' | 'LIVE'): boolean {
    return this.gateways.servesMode(mode);
  }

  registerInvoiceLink(link: InvoiceLink): void {
    this.invoiceLink = link;
  }

  private link(): InvoiceLink {
    if (!this.invoiceLink) throw new Error('Invoices module has not registered its InvoiceLink');
    return this.invoiceLink;
  }

  @Transactional()
  async create(
    scope: TenantScope,
    input: CreatePaymentDto,
    opts: CreatePaymentOptions = {},
  ): Promise<Payment> {
    const currency = assertCurrency(input.currency);
    const app = await this.apps.get(scope.appId);
    if (
      (!opts.hosted && input.amountMinor < app.minAmountMinor) ||
      input.amountMinor > app.maxAmountMinor
    ) {
      throw new AppError(
        ErrorCode.AMOUNT_OUT_OF_RANGE,
        `amountMinor must be between ${app.minAmountMinor} and ${app.maxAmountMinor} for this app`,
      );
    }
    const urls = {
      successUrl: input.successUrl ?? app.defaultSuccessUrl,
      failUrl: input.failUrl ?? app.defaultFailUrl,
      cancelUrl: input.cancelUrl ?? app.defaultCancelUrl,
    };
    if (!opts.hosted) {
      for (const field of ['successUrl', 'failUrl', 'cancelUrl'] as const) {
        const url = input[field];
        if (url && !AppsService.isRedirectAllowed(app, url)) {
          throw new AppError(
            ErrorCode.REDIRECT_URL_NOT_ALLOWED,
            `${field} is not allowed by the app's returnUrlAllowlist`,
            [
              {
                field,
                message: 'origin not in returnUrlAllowlist (or not https when the list is empty)',
              },
            ],
          );
        }
      }
    }
    assertMetadataSize(input.metadata);
    const invoiceCustomerId =
      input.invoiceId === undefined
        ? undefined
        : await this.reserveOnInvoice(scope, input.invoiceId, input.amountMinor, !opts.hosted);
    const gateway = this.gateways.forMode(scope.mode, input.gateway);
    const customer =
      invoiceCustomerId === undefined
        ? await this.customers.findOrCreate(scope, input.customerReference!, {
            name: input.customerName,
            email: input.customerEmail,
            phone: input.customerPhone,
          })
        : await this.invoiceCustomer(scope, invoiceCustomerId, input.customerReference);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + app.paymentExpiryMinutes * 60_000);
    const reference = `pay_${randomToken(18)}`;
    // The checkout first (it only needs our reference), so the payment is written once.
    const session = await gateway.createCheckout({
      reference,
      amountMinor: input.amountMinor,
      currency,
      description: input.description ?? null,
      merchantName: app.name,
      customer: {
        reference: customer.externalId,
        name: customer.name,
        email: customer.email,
        phone: customer.phone,
      },
      returnUrl: `${this.config.publicBaseUrl}/api/v1/gateways/${gateway.name}/return`,
      expiresAt,
    });
    const repo = this.payments.repo;
    return repo.save(
      repo.create({
        ...scope,
        reference,
        status: 'PENDING',
        amountMinor: input.amountMinor,
        excessMinor: 0,
        currency,
        gateway: gateway.name,
        gatewaySessionId: session.sessionId,
        checkoutUrl: session.checkoutUrl,
        gatewayTxnId: null,
        ...urls,
        customerId: customer.id,
        invoiceId: input.invoiceId ?? null,
        description: input.description ?? null,
        metadata: input.metadata ?? null,
        expiresAt,
        succeededAt: null,
        createdAt: now,
        updatedAt: now,
      }),
    );
  }

  /**
   * A payment of an invoice may take only what is not yet reserved: its
   * amount plus the invoice's PENDING payments must fit what is due. The
   * invoice row stays locked until this transaction ends, so two creates for
   * one invoice are decided one after the other. Returns the invoice's customer.
   * (Only API payments reserve; see `checkReserved`.)
   */
  private async reserveOnInvoice(
    scope: TenantScope,
    invoiceId: number,
    amountMinor: number,
    checkReserved: boolean,
  ): Promise<number> {
    const { dueMinor, customerId } = await this.link().assertPayable(scope, invoiceId);
    // The hosted pay page pays what is due, reusing its own open checkout
    // first; an older checkout paid as well ends as excess, refunded.
    if (!checkReserved) return customerId;
    const open = await this.payments.repo.find({
      where: this.payments.where(scope, { invoiceId, status: 'PENDING' }),
      order: { id: 'ASC' },
    });
    const reserved = open.reduce((sum, p) => sum + p.amountMinor, 0);
    if (amountMinor + reserved > dueMinor) {
      const ids = open.map((p) => p.id);
      const message =
        `amountMinor ${amountMinor} exceeds what invoice ${invoiceId} still needs: ${dueMinor} due` +
        (ids.length ? `, of which ${reserved} is reserved by open payments ${ids.join(', ')}` : '');
      throw new AppError(ErrorCode.AMOUNT_OUT_OF_RANGE, message, [
        { field: 'amountMinor', message },
      ]);
    }
    return customerId;
  }

  /** The invoice's customer pays its invoice; naming another is a mistake (400). */
  private async invoiceCustomer(scope: TenantScope, customerId: number, reference?: string) {
    const customer = await this.customers.get(scope, customerId);
    if (reference !== undefined && reference !== customer.externalId) {
      throw AppError.validation(
        'customerReference',
        "customerReference must be the invoice's customer (or be left out)",
      );
    }
    return customer;
  }

  /** The app-facing view of a payment (for features that embed payments). */
  static toDto(p: Payment): PaymentDto {
    return toPaymentDto(p);
  }

  /** By the public reference (result page); not scoped, the reference is the capability. */
  findByReference(reference: string): Promise<Payment | null> {
    if (!/^pay_[A-Za-z0-9_-]{10,64}$/.test(reference)) return Promise.resolve(null);
    return this.payments.repo.findOne({ where: { reference } });
  }

  get(scope: TenantScope, id: number): Promise<Payment> {
    return this.payments.get(scope, id);
  }

  list(
    scope: TenantScope,
    query: PageQuery,
    filter: { status?: string; customerId?: number } = {},
  ): Promise<Page<Payment>> {
    const qb = this.payments.repo.createQueryBuilder('p').where(this.payments.where(scope));
    if (filter.status) qb.andWhere('p.status = :status', { status: filter.status });
    if (filter.customerId !== undefined)
      qb.andWhere('p.customer_id = :cid', { cid: filter.customerId });
    return pageOf(qb, 'p', query);
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
  adminSearch(query: {
    applicationId?: number;
    mode?: 'TEST' | 'LIVE';
    status?: string;
    excess?: 'true' | 'false';
    page?: number;
    size?: number;
  }): Promise<Page<Payment>> {
    const qb = this.payments.repo.createQueryBuilder('p');
    if (query.applicationId) qb.andWhere('p.app_id = :appId', { appId: query.applicationId });
    if (query.mode) qb.andWhere('p.mode = :mode', { mode: query.mode });
    if (query.status) qb.andWhere('p.status = :status', { status: query.status });
    if (query.excess === 'true') qb.andWhere('p.excess_minor > 0');
    if (query.excess === 'false') qb.andWhere('p.excess_minor = 0');
    return pageOf(qb, 'p', query);
  }

  /** Payments of several invoices at once (one query), oldest first. */
  async forInvoices(scope: TenantScope, invoiceIds: number[]): Promise<Payment[]> {
    if (invoiceIds.length === 0) return [];
    return this.payments.repo
      .createQueryBuilder('p')
      .where(this.payments.where(scope))
      .andWhere('p.invoice_id IN (:...ids)', { ids: invoiceIds })
      .orderBy('p.id', 'ASC')
      .getMany();
  }

  /** An open payment of the invoice for exactly this amount, to reuse instead of opening another checkout. */
  async openPaymentFor(
    scope: TenantScope,
    invoiceId: number,
    amountMinor: number,
  ): Promise<Payment | null> {
    return this.payments.repo
      .createQueryBuilder('p')
      .where(this.payments.where(scope))
      .andWhere(
        'p.invoice_id = :invoiceId AND p.status = :pending AND p.amount_minor = :amountMinor AND p.expires_at > :now',
        {
          invoiceId,
          pending: 'PENDING',
          amountMinor,
          now: this.clock.now(),
        },
      )
      .orderBy('p.id', 'DESC')
      .getOne();
  }

  /**
   * App-requested cancel: only a PENDING payment; cancelling twice is a
   * no-op. Once the cancel is committed the gateway checkout is closed where
   * the gateway allows it; a capture that still arrives is recorded.
   */
  async cancel(scope: TenantScope, id: number): Promise<Payment> {
    const payment = await this.cancelLocked(scope, id);
    await this.closeCheckouts([payment]);
    return payment;
  }

  @Transactional()
  private async cancelLocked(scope: TenantScope, id: number): Promise<Payment> {
    const payment = await this.payments.getForUpdate(scope, id);
    const result = await this.apply(payment, 'cancel');
    if (result.invalid) throw AppError.invalidState(result.invalid);
    return result.payment;
  }

  /**
   * Closes the gateway checkouts of cancelled payments (an explicit cancel or
   * a voided invoice), after the cancel: no row lock is held during the
   * calls. Expiry never closes a checkout (a late payment revives).
   */
  async closeCheckouts(payments: Payment[]): Promise<void> {
    for (const p of payments) {
      if (p.status !== 'CANCELLED' || !p.gatewaySessionId) continue;
      const gateway = this.gateways.get(p.gateway);
      await gateway.closeCheckout?.(p.gatewaySessionId).catch((err: unknown) => {
        this.logger.warn(`Could not close the checkout of payment ${p.id}: ${(err as Error).name}`);
      });
    }
  }

  /**
   * Locks (FOR UPDATE, in id order) the PENDING payments of an invoice. Lock
   * order is payments before their invoice: a confirmation holds its payment
   * when it reaches the invoice, so the other order deadlocks with it.
   */
  lockOpenForInvoice(scope: TenantScope, invoiceId: number): Promise<Payment[]> {
    return this.payments.repo.find({
      where: this.payments.where(scope, { invoiceId, status: 'PENDING' }),
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /**
   * Before the pay button opens a checkout: asks the gateway about the
   * invoice's PENDING and EXPIRED checkouts (the customer may have paid one
   * whose return never reached Joma, even after its deadline), with no
   * transaction or lock held during the calls, and applies each finished one
   * in a short transaction of its own through the verified path.
   */
  async refreshCheckoutsForInvoice(scope: TenantScope, invoiceId: number): Promise<void> {
    const earlier = await this.payments.repo.find({
      where: this.payments.where(scope, { invoiceId, status: In(['PENDING', 'EXPIRED']) }),
      order: { id: 'ASC' },
    });
    for (const p of earlier) {
      if (!p.gatewaySessionId) continue;
      const status = await this.queryGateway(p).catch(() => null);
      if (status && status.outcome !== 'open') await this.applyVerifiedById(p.id, status);
    }
  }

  @Transactional()
  private async applyVerifiedById(id: number, verified: VerifiedStatus): Promise<void> {
    const payment = await this.payments.repo.findOne({
      where: { id },
      lock: { mode: 'pessimistic_write' },
    });
    if (payment) await this.applyVerified(payment, verified);
  }

  /** Cancels every PENDING payment of an invoice (the invoice is being voided); returns them. */
  async cancelOpenForInvoice(scope: TenantScope, invoiceId: number): Promise<Payment[]> {
    const open = await this.lockOpenForInvoice(scope, invoiceId);
    for (const p of open) await this.apply(p, 'cancel');
    return open;
  }

  /**
   * The one confirmation path: whatever reached Joma from a gateway (browser
   * return, IPN, a test helper) is verified with the gateway, then applied.
   * Repeats and races change nothing and emit nothing.
   */
  @Transactional()
  async confirmFromGateway(
    gatewayName: string,
    payload: Record<string, unknown>,
  ): Promise<ApplyResult | null> {
    if (!this.gateways.has(gatewayName)) return null;
    const verified = await this.gateways.get(gatewayName).verifyConfirmation(payload);
    if (!verified) return null;
    const payment = await this.lockBySession(gatewayName, verified.sessionId);
    if (!payment) return null;
    return this.applyVerified(payment, verified);
  }

  private async lockBySession(gateway: string, sessionId: string): Promise<Payment | null> {
    return this.payments.repo.findOne({
      where: { gateway, gatewaySessionId: sessionId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  private async applyVerified(payment: Payment, verified: VerifiedStatus): Promise<ApplyResult> {
    if (verified.outcome === 'open') return { payment, changed: false };
    if (
      verified.reference !== payment.reference ||
      verified.amountMinor !== payment.amountMinor ||
      verified.currency !== payment.currency
    ) {
      this.logger.error(`Gateway confirmation does not match payment ${payment.id}; ignored`);
      return {
        payment,
        changed: false,
        invalid: 'Gateway confirmation does not match the payment',
      };
    }
    // A verified capture always applies (it is the truth about money); other
    // outcomes follow the state table.
    return this.apply(payment, TRIGGER_OF[verified.outcome], verified);
  }

  /**
   * Applies a trigger to a payment already locked FOR UPDATE in this
   * transaction: the pure transition decides; the row, the event and the
   * invoice follow in the same transaction.
   */
  private async apply(
    payment: Payment,
    trigger: PaymentTrigger,
    verified?: VerifiedStatus,
  ): Promise<ApplyResult> {
    const t = transition(payment.status, trigger);
    if (t.kind === 'noop') return { payment, changed: false };
    if (t.kind === 'invalid') return { payment, changed: false, invalid: t.reason };
    const previous = payment.status;
    const now = this.clock.now();
    payment.status = t.to;
    payment.updatedAt = now;
    if (t.to === 'SUCCEEDED') {
      payment.succeededAt = now;
      payment.gatewayTxnId = verified?.txnId ?? payment.gatewayTxnId;
      payment.paymentMethod = verified?.method?.type ?? null;
      payment.paymentMethodLabel = verified?.method?.label ?? null;
      payment.paymentMethodBrand = verified?.method?.brand ?? null;
      payment.paymentMethodIssuer = verified?.method?.issuer ?? null;
      payment.paymentMethodAccount = verified?.method?.account ?? null;
    }
    const scope = { appId: payment.appId, mode: payment.mode };
    // What the invoice will not count (already paid or void, or more than it
    // needs) is this capture's excess; the invoice stays locked until commit.
    if (t.to === 'SUCCEEDED' && payment.invoiceId !== null) {
      payment.excessMinor = await this.link().excessOf(scope, payment);
    }
    const saved = await this.payments.repo.save(payment);
    const customer = await this.customers.get(scope, saved.customerId);
    await this.events.record(
      scope,
      t.event,
      paymentEventData(saved, previous, customer.externalId),
    );
    if (t.to === 'SUCCEEDED' && saved.invoiceId !== null)
      await this.link().onPaymentSucceeded(scope, saved);
    if (saved.excessMinor > 0) {
      this.logger.warn(
        `Payment ${saved.id} captured ${saved.excessMinor} beyond what invoice ${saved.invoiceId} needed (excess, to be refunded)`,
      );
    }
    return { payment: saved, changed: true };
  }

  /**
   * Expires due PENDING payments, a batch at a time, safe with several
   * replicas (FOR UPDATE SKIP LOCKED). A payment the gateway reports as
   * captured is settled instead of expired.
   */
  @Transactional()
  async expireDue(limit = 100): Promise<number> {
    const due = await this.payments.repo
      .createQueryBuilder('p')
      .where('p.status = :pending AND p.expires_at <= :now', {
        pending: 'PENDING',
        now: this.clock.now(),
      })
      .orderBy('p.expires_at', 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
    for (const payment of due) await this.expireOne(payment);
    return due.length;
  }

  private async expireOne(payment: Payment): Promise<ApplyResult> {
    if (payment.gatewaySessionId) {
      // A gateway that cannot answer must not stall the sweep for everyone:
      // the deadline passes, and a later capture still revives the payment.
      const status = await this.queryGateway(payment).catch(() => null);
      if (status && status.outcome !== 'open') {
        const settled = await this.applyVerified(payment, status);
        // An answer that does not match the payment (logged) settles nothing:
        // the deadline still passes, or the payment would stay PENDING and be
        // claimed again by every sweep (100 such rows: a sweep that never ends).
        if (!settled.invalid) return settled;
      }
    }
    return this.apply(payment, 'expire');
  }

  private async queryGateway(payment: Payment) {
    try {
      return await this.gateways.get(payment.gateway).queryStatus(payment.gatewaySessionId!);
    } catch (err) {
      this.logger.warn(
        `Gateway status query failed for payment ${payment.id}: ${(err as Error).name}`,
      );
      throw err;
    }
  }

  /** Test helper: the deadline passes now (TEST mode only; checked by the caller). */
  @Transactional()
  async expireNow(scope: TenantScope, id: number): Promise<Payment> {
    const payment = await this.payments.getForUpdate(scope, id);
    if (payment.status === 'PENDING') {
      payment.expiresAt = this.clock.now();
      return (await this.expireOne(payment)).payment;
    }
    const t = transition(payment.status, 'expire');
    if (t.kind === 'invalid') throw AppError.invalidState(t.reason);
    return payment;
  }

  /** Refuses (409) an outcome this payment can no longer take, before anything touches the gateway. */
  async assertCanSettle(scope: TenantScope, id: number, outcome: SettleOutcome): Promise<Payment> {
    const payment = await this.payments.get(scope, id);
    const t = transition(payment.status, SETTLE_TRIGGER[outcome]);
    if (t.kind === 'invalid') throw AppError.invalidState(t.reason);
    return payment;
  }
}
