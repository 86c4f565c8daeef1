import { Injectable } from '@nestjs/common';

import { Benefit, CatalogService } from '../catalog';
import type { TenantScope } from '../database/tenant';
import type { Entitlement } from './entitlement.entity';
import { EntitlementsRepository } from './entitlements.repository';

/** A held benefit, as the entitlements route shows it. */
export interface HeldEntitlement {
  entitlement: Entitlement;
  benefit: Benefit;
}

/** What a grant or revocation changed, in lookup keys. */
export interface EntitlementChange {
  granted: string[];
  revoked: string[];
  /** Every lookupKey the customer holds now (from any source). */
  entitlements: string[];
}

/**
 * Who holds which benefit. A customer holds a product's active benefits
 * while a subscription to it is TRIALING or ACTIVE, and for good once a
 * one-time purchase of it is paid. Works inside the caller's transaction.
 */
@Injectable()
export class EntitlementsService {
  constructor(
    private readonly entitlements: EntitlementsRepository,
    private readonly catalog: CatalogService,
  ) {}

  /** Grants the product's active benefits from the subscription (those already held from it stay). */
  async grantForSubscription(
    scope: TenantScope,
    sub: { id: number; customerId: number; productId: number },
    at: Date,
  ): Promise<EntitlementChange> {
    const benefits = await this.catalog.activeBenefitsOfProduct(scope, sub.productId);
    const granted = await this.entitlements.grant(
      benefits.map((b) => ({
        ...scope,
        customerId: sub.customerId,
        benefitId: b.id,
        subscriptionId: sub.id,
        invoiceId: null,
        grantedAt: at,
      })),
    );
    return this.change(scope, sub.customerId, granted, []);
  }

  async revokeForSubscription(
    scope: TenantScope,
    sub: { id: number; customerId: number },
    at: Date,
  ): Promise<EntitlementChange> {
    const revoked = await this.entitlements.revokeAllOfSubscription(sub.id, at);
    return this.change(scope, sub.customerId, [], revoked);
  }

  /** A paid one-time purchase: its product's active benefits, for good. */
  async grantForInvoice(
    scope: TenantScope,
    invoice: { id: number; customerId: number },
    productId: number,
    at: Date,
  ): Promise<void> {
    const benefits = await this.catalog.activeBenefitsOfProduct(scope, productId);
    await this.entitlements.grant(
      benefits.map((b) => ({
        ...scope,
        customerId: invoice.customerId,
        benefitId: b.id,
        subscriptionId: null,
        invoiceId: invoice.id,
        grantedAt: at,
      })),
    );
  }

  /** What the customer holds now, one row per grant. */
  async heldBy(scope: TenantScope, customerId: number): Promise<HeldEntitlement[]> {
    const live = await this.entitlements.liveOf(scope, customerId);
    const benefits = await this.benefitsById(
      scope,
      live.map((e) => e.benefitId),
    );
    return live.map((entitlement) => ({
      entitlement,
      benefit: benefits.get(entitlement.benefitId)!,
    }));
  }

  private async change(
    scope: TenantScope,
    customerId: number,
    grantedIds: number[],
    revokedIds: number[],
  ): Promise<EntitlementChange> {
    const live = await this.entitlements.liveOf(scope, customerId);
    const benefits = await this.benefitsById(scope, [
      ...grantedIds,
      ...revokedIds,
      ...live.map((e) => e.benefitId),
    ]);
    const keys = (ids: number[]) => [...new Set(ids.map((id) => benefits.get(id)!.lookupKey))];
    const entitlements = keys(live.map((e) => e.benefitId));
    // A benefit still held from another source was not lost.
    const revoked = keys(revokedIds).filter((k) => !entitlements.includes(k));
    return { granted: keys(grantedIds), revoked, entitlements };
  }

  private async benefitsById(scope: TenantScope, ids: number[]): Promise<Map<number, Benefit>> {
    const benefits = await this.catalog.benefitsByIds(scope, [...new Set(ids)]);
    return new Map(benefits.map((b) => [b.id, b]));
  }
}
