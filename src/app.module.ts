import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { LoggerModule } from 'nestjs-pino';

import { AppsModule } from './apps/apps.module';
import { AuthModule } from './auth/auth.module';
import { BillingModule } from './billing';
import { ResponseInterceptor } from './bootstrap/response.interceptor';
import { CatalogModule } from './catalog/catalog.module';
import { Clock } from './common/clock/clock';
import { ClockModule } from './common/clock/clock.module';
import { DomainEventsModule } from './common/domain-events';
import { EnvelopeInterceptor } from './common/http/envelope.interceptor';
import { AllExceptionsFilter } from './common/http/exception.filter';
import { loggerParams, PendingLogLines } from './common/http/logging';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { CustomerProfilesModule } from './customer-profiles';
import { DashboardModule } from './dashboard';
import { DatabaseModule } from './database/database.module';
import { EntitlementsModule } from './entitlements';
import { EventsModule } from './events/events.module';
import { BkashGatewayModule } from './gateways/bkash';
import { NagadGatewayModule } from './gateways/nagad';
import { SandboxGatewayModule } from './gateways/sandbox';
import { SslcommerzGatewayModule } from './gateways/sslcommerz';
import { HealthModule } from './health/health.module';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { InvoicesModule } from './invoices/invoices.module';
import { LedgerModule } from './ledger';
import { NotificationsModule } from './notifications';
import { PaymentsModule } from './payments/payments.module';
import { PurchasesModule } from './purchases/purchases.module';
import { ReconciliationModule } from './reconciliation';
import { RefundsModule } from './refunds';
import { RetentionModule } from './retention/retention.module';
import { SubscriptionsModule } from './subscriptions';
import { TestHelpersModule } from './test-helpers/test-helpers.module';
import { WebhooksModule } from './webhooks/webhooks.module';

export interface AppModuleOptions {
  clock?: Clock;
}

/** Wires the feature modules and the cross-cutting pieces; nothing else. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ClockModule.forRoot(options.clock),
        LoggerModule.forRoot(loggerParams(config.logLevel, config.logFormat)),
        ScheduleModule.forRoot(),
        DatabaseModule.forRoot(config),
        DomainEventsModule,
        HealthModule,
        EventsModule,
        IdempotencyModule,
        AuthModule,
        AppsModule,
        CatalogModule,
        SandboxGatewayModule,
        SslcommerzGatewayModule,
        BkashGatewayModule,
        NagadGatewayModule,
        PaymentsModule,
        EntitlementsModule,
        SubscriptionsModule,
        RefundsModule,
        LedgerModule,
        ReconciliationModule,
        InvoicesModule,
        BillingModule,
        PurchasesModule,
        CustomerProfilesModule,
        TestHelpersModule,
        WebhooksModule,
        RetentionModule,
        NotificationsModule,
        DashboardModule,
      ],
      providers: [
        IdempotencyInterceptor,
        EnvelopeInterceptor,
        // Idempotency around the envelope, so it stores the exact body sent.
        { provide: APP_INTERCEPTOR, useClass: ResponseInterceptor },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        PendingLogLines,
      ],
    };
  }
}
