import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { AdminUsersService } from './admin-users.service';

/** Creates the first super admin from ADMIN_EMAIL/ADMIN_PASSWORD when no admin exists. */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('AdminBootstrap');

  constructor(
    private readonly config: AppConfig,
    private readonly users: AdminUsersService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { adminEmail, adminPassword } = this.config;
    if (!adminEmail || !adminPassword) return;
    if ((await this.users.count()) > 0) return;
    try {
      await this.users.create({
        email: adminEmail,
        name: 'Super admin',
        password: adminPassword,
        superAdmin: true,
      });
      this.logger.log(`Created the first super admin (${adminEmail})`);
    } catch (err) {
      // Another replica may have won the race; the unique email index decides.
      this.logger.warn(`First super admin not created: ${(err as Error).message}`);
    }
  }
}
