/**
 * The port every payment gateway adapter implements (sandbox, SSLCommerz,
 * bKash, Nagad). Payments talk to gateways only through this. A gateway is a name,
 * the modes it may serve, and capabilities: every adapter opens checkouts
 * and answers status queries; refunds and settlement reports are optional
 * (SSLCommerz and bKash refund but publish no settlement API: their payouts
 * are imported as CSV, docs/gateways.md; Nagad publishes no refund call, so
 * its refunds are manual). Adapters are network clients: nothing here may be
 * called inside a database transaction that holds row locks.
 */
export type GatewayMode = 'TEST' | 'LIVE';

/** The gateways this version ships (the document lists them as the accepted names). */
export const GATEWAY_NAMES = ['sandbox', 'sslcommerz', 'bkash', 'nagad'] as const;

/**
 * Whose money a call is about: the app and mode, and the app's credentials
 * for this gateway in that mode (decrypted; null when the app has set none).
 * Adapters never log or return credentials.
 */
export interface GatewayContext {
  appId: number;
  mode: GatewayMode;
  credentials: Readonly<Record<string, string>> | null;
  /** An overall deadline for this piece of work (a callback's): calls stop when it fires. */
  signal?: AbortSignal;
}

/** Which payment a callback claims to be about, read before anything in it is believed. */
export interface CallbackSubject {
  sessionId?: string;
  reference?: string;
}

/** A checkout as Joma knows it: the gateway's session id and Joma's payment reference. */
export interface CheckoutRef {
  sessionId: string;
  reference: string;
}

export interface CheckoutRequest {
  /** Joma's payment reference, unique, sent to the gateway as its transaction id. */
  reference: string;
  amountMinor: number;
  currency: string;
  description?: string | null;
  merchantName: string;
  customer: {
    reference: string;
    name?: string | null;
    email?: string | null;
    phone?: string | null;
  };
  /** Where the gateway sends the customer's browser back; Joma verifies before believing it. */
  returnUrl: string;
  /** Where the gateway posts its server-to-server notification (IPN). */
  ipnUrl: string;
  expiresAt: Date;
}

export interface CheckoutSession {
  /** The gateway's id for this checkout session. */
  sessionId: string;
  /** Where the customer pays. */
  checkoutUrl: string;
}

export type GatewayOutcome = 'captured' | 'failed' | 'cancelled' | 'open';

/** What the gateway itself says about a session, after verification. */
export interface VerifiedStatus {
  sessionId: string;
  /** The merchant reference the gateway states ('' when its answer leaves it out: no difference). */
  reference: string;
  outcome: GatewayOutcome;
  /** What the gateway states it moved (null when its answer leaves the amount out: no difference). */
  amountMinor: number | null;
  /** '' when the answer leaves it out (no difference). */
  currency: string;
  txnId?: string | null;
  /** The gateway's risk verdict on a capture (SSLCommerz `risk_level` 1: HIGH). */
  riskLevel?: 'NORMAL' | 'HIGH';
  /** Why the gateway failed it, in its own words (code and message). */
  failureReason?: string | null;
  /**
   * `failed` is one attempt's, on a checkout the payer may still pay (an
   * SSLCommerz session takes another try after a declined card): it ends
   * the payment only once the payment's deadline has passed, so no
   * `payment.failed` precedes a later success (decisions section 19).
   */
  attemptOnly?: boolean;
  method?: {
    type?: string | null;
    label?: string | null;
    brand?: string | null;
    issuer?: string | null;
    /** Masked, never a full card or wallet number. */
    account?: string | null;
  };
}

export interface GatewayRefund {
  refundId: string;
  /** `pending`: accepted, not yet done (SSLCommerz "initiated", bKash processing). */
  status: 'succeeded' | 'pending' | 'failed';
  /** The gateway's own error code and message when it refused (never credentials). */
  failureReason?: string | null;
}

/** Which refund a status query is about: Joma's reference, and the gateway's id once known. */
export interface RefundQuery {
  sessionId: string;
  txnId: string;
  amountMinor: number;
  /** Joma's refund reference (`rfd_<id>`), sent with the refund. */
  reference: string;
  /** The gateway's id for this refund, when an answer named it. */
  gatewayRefundId: string | null;
  /** The gateway ids of this payment's other refunds (not this one). */
  otherRefundIds: readonly string[];
}

export interface SettlementLine {
  reference: string;
  txnId: string;
  amountMinor: number;
  settledAt: Date;
}

/** Opening hosted checkouts and believing what comes back from them. */
export interface CheckoutCapability {
  createCheckout(req: CheckoutRequest, ctx: GatewayContext): Promise<CheckoutSession>;
  /** Which payment a callback payload names (unverified: only to find the payment and its app). */
  subjectOf(payload: Record<string, unknown>): CallbackSubject | null;
  /**
   * Turns whatever reached Joma (browser return, IPN) into the gateway's own
   * verified answer, by asking the gateway (validation API) or checking its
   * signature. Never trusts the payload's claims alone. Null: not genuine.
   */
  verifyConfirmation(
    payload: Record<string, unknown>,
    ctx: GatewayContext,
  ): Promise<VerifiedStatus | null>;
  /**
   * Closes an unpaid checkout after the merchant cancelled its payment (or
   * voided its invoice), where the gateway allows it, so the customer can no
   * longer pay there. Optional: without it (or when the customer already
   * paid), a later capture still arrives and counts as excess. Expiry never
   * closes a checkout: a late payment revives the payment. True when the
   * gateway confirms the checkout can take no payment any more; otherwise
   * the cancelled payment is asked about for 72 hours (decisions 13).
   */
  closeCheckout?(sessionId: string, ctx: GatewayContext): Promise<boolean>;
}

/** Asking the gateway what became of a checkout (sweeps, the pay button's refresh). */
export interface StatusQueryCapability {
  queryStatus(checkout: CheckoutRef, ctx: GatewayContext): Promise<VerifiedStatus | null>;
}

export interface RefundCapability {
  /**
   * How many days after its capture the gateway still refunds a payment
   * (bKash: 15); none: no published limit. Checked before a refund is opened.
   */
  readonly refundWindowDays?: number;
  /**
   * Asks the gateway to refund part or all of a capture. `reference` is
   * Joma's refund reference: sending the same one again must not refund
   * twice. `pending` (the gateway is processing it) leaves the refund
   * PENDING until `queryRefund` says otherwise.
   */
  refund(
    req: {
      sessionId: string;
      txnId: string;
      amountMinor: number;
      reference: string;
      reason?: string | null;
    },
    ctx: GatewayContext,
  ): Promise<GatewayRefund>;
  /**
   * What became of a refund that was sent: its status, or null when the
   * gateway positively has no such refund (only then may it be sent again).
   * Throws when the gateway cannot say (unreachable, garbage, ambiguous):
   * the refund is then asked about again later, never re-sent on a guess
   * (decisions section 7: a refund reaches the gateway at most once).
   */
  queryRefund(req: RefundQuery, ctx: GatewayContext): Promise<GatewayRefund | null>;
}

export interface SettlementCapability {
  settlementLines(day: string): Promise<SettlementLine[]>;
}

export interface PaymentGateway {
  /** The name payments are created with (`gateway` in the API) and callbacks arrive under. */
  readonly name: string;
  /** The modes it may take payments in (a gateway that moves no money serves TEST only). */
  readonly modes: readonly GatewayMode[];
  /** The credential fields an app sets for it (PATCH /admin/apps/{id}/gateways/{name}); none for the sandbox. */
  readonly credentialFields: readonly string[];
  /** The longest value a credential field may have (Nagad's RSA keys); none: 500 characters. */
  readonly credentialMaxLength?: number;
  /**
   * What is wrong with credentials an admin sets (a key that does not parse,
   * say): the field and why, never the value; null when they are usable.
   */
  credentialProblem?(credentials: Readonly<Record<string, string>>): {
    field: string;
    message: string;
  } | null;
  /** The amounts one transaction may have at this gateway (SSLCommerz: 10 to 500,000 BDT); none: any. */
  readonly limits?: { readonly minMinor: number; readonly maxMinor: number };
  readonly checkout: CheckoutCapability;
  readonly statusQuery: StatusQueryCapability;
  readonly refunds?: RefundCapability;
  readonly settlements?: SettlementCapability;
}
