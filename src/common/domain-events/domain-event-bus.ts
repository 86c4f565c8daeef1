import { AsyncLocalStorage } from 'node:async_hooks';

import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { DomainEvent, DomainEventClass } from './domain-event';
import { DOMAIN_EVENT_HANDLER, DomainEventHandlerMeta } from './on-domain-event.decorator';

interface Subscriber {
  event: DomainEventClass;
  order: number;
  name: string;
  handle(event: DomainEvent): Promise<void>;
}

/**
 * The typed, synchronous domain-event bus. `publish` runs every subscriber of
 * the fact (found through @OnDomainEvent) one after the other, in the
 * caller's transaction. Facts published by a subscriber are queued and run
 * after the current fact's subscribers, so facts reach the outbox in the
 * order they happened.
 *
 * The order, then, is two phases per fact and one queue across facts:
 *   1. SETTLE: the fact's subscribers, in discovery order (module imports);
 *      none reads another's result, and a fact is never changed once
 *      published (they are immutable). What one decides, it publishes.
 *   2. OUTBOX: the outbox records the fact's webhook form, if it has one.
 *   then the next queued fact, the same way.
 * A capture, for instance:
 *   PaymentSucceeded  ledger posts the capture; the invoice counts it and
 *                     publishes CaptureSettled, then InvoicePaid (queued)
 *   CaptureSettled    the payment records its excess, refunds open the excess
 *                     refund (RefundPending, queued), notifications the
 *                     receipt; outbox: payment.succeeded
 *   InvoicePaid       subscriptions, entitlements; outbox: invoice.paid
 *   RefundPending     ledger reserves it; outbox: refund.pending
 */
@Injectable()
export class DomainEventBus implements OnModuleInit {
  private subscribers: Subscriber[] = [];
  private readonly dispatching = new AsyncLocalStorage<DomainEvent[]>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {}

  onModuleInit(): void {
    const found: Subscriber[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const proto = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(proto)) {
        const fn = instance[method] as (e: DomainEvent) => Promise<void>;
        const meta = this.reflector.get<DomainEventHandlerMeta | undefined>(
          DOMAIN_EVENT_HANDLER,
          fn,
        );
        if (!meta) continue;
        found.push({
          ...meta,
          name: `${proto.constructor.name}.${method}`,
          handle: (e) => fn.call(instance, e),
        });
      }
    }
    // Stable: equal orders keep discovery order, which follows module imports.
    this.subscribers = found.sort((a, b) => a.order - b.order);
  }

  /** Who reacts to a fact of this class, in the order they run (for tests and docs). */
  subscribersOf(event: DomainEventClass): string[] {
    return this.subscribers
      .filter((s) => event === s.event || event.prototype instanceof s.event)
      .map((s) => s.name);
  }

  async publish(event: DomainEvent): Promise<void> {
    if (!this.txHost.isTransactionActive()) {
      throw new Error(
        `${event.constructor.name} must be published inside the transaction of the state change`,
      );
    }
    const queue = this.dispatching.getStore();
    if (queue) {
      queue.push(event);
      return;
    }
    const pending: DomainEvent[] = [event];
    await this.dispatching.run(pending, async () => {
      while (pending.length > 0) {
        const next = pending.shift()!;
        for (const s of this.subscribers) {
          if (next instanceof s.event) await s.handle(next);
        }
      }
    });
  }
}
