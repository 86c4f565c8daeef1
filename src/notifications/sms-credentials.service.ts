import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../audit';
import { Clock } from '../common/clock/clock';
import { decryptSecret, encryptSecret } from '../common/crypto/crypto';
import { AppConfig } from '../config/app-config';
import type { TenantScope } from '../database/tenant';
import { NotificationsRepository } from './notifications.repository';

/**
 * An app's SMS provider credentials per mode, sealed with ENCRYPTION_KEY like
 * gateway credentials: never returned, never logged.
 */
@Injectable()
export class SmsCredentialsService {
  constructor(
    private readonly repo: NotificationsRepository,
    private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async set(
    scope: TenantScope,
    provider: string,
    credentials: Record<string, string>,
  ): Promise<void> {
    const sealed = encryptSecret(this.config.encryptionKey, JSON.stringify(credentials));
    await this.repo.setSmsCredential(scope, provider, sealed, this.clock.now());
    await this.audit.record({
      action: 'sms_credentials.set',
      targetType: 'app',
      targetId: scope.appId,
      after: { mode: scope.mode, provider, fields: Object.keys(credentials).sort() },
    });
  }

  async get(scope: TenantScope, provider: string): Promise<Record<string, string> | null> {
    const sealed = await this.repo.smsCredential(scope, provider);
    return sealed
      ? (JSON.parse(decryptSecret(this.config.encryptionKey, sealed)) as Record<string, string>)
      : null;
  }

  async configured(scope: TenantScope, provider: string): Promise<boolean> {
    return (await this.repo.smsCredential(scope, provider)) !== null;
  }
}
