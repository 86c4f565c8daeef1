import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AppsModule } from '../apps';
import { AuditModule } from '../audit';
import { AuthModule } from '../auth';
import { InvoicesModule } from '../invoices';
import { EmailChannel } from './channels/email-channel';
import { SMS_PROVIDER } from './channels/sms-channel';
import { SslWirelessSms } from './channels/sslwireless-sms';
import { Notification, SmsCredential } from './notification.entity';
import { NotificationDecisions } from './notification-decisions.subscriber';
import { NotificationMetrics } from './notification-metrics';
import { NotificationWorker } from './notification-worker';
import { NotificationsController, SmsCredentialsController } from './notifications.controller';
import { NotificationsRepository } from './notifications.repository';
import { SmsCredentialsService } from './sms-credentials.service';

/**
 * Customer notifications (decisions section 16): messages decided in the
 * transaction of their fact (NotificationDecisions), sent after commit by
 * the worker through the email channel (SMTP) and the SMS port (SSL
 * Wireless), listed at GET /notifications.
 */
@Module({
  imports: [
    AuthModule,
    AuditModule,
    AppsModule,
    InvoicesModule,
    TypeOrmModule.forFeature([Notification, SmsCredential]),
  ],
  controllers: [NotificationsController, SmsCredentialsController],
  providers: [
    NotificationsRepository,
    SmsCredentialsService,
    NotificationDecisions,
    NotificationWorker,
    NotificationMetrics,
    EmailChannel,
    SslWirelessSms,
    { provide: SMS_PROVIDER, useExisting: SslWirelessSms },
  ],
  exports: [NotificationWorker],
})
export class NotificationsModule {}
