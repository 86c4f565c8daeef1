import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { transientStartupError, withStartupRetry } from '../database/startup-retry';
import { AdminUsersService } from './admin-users.service';

/**
 * Creates the first super admin from ADMIN_EMAIL/ADMIN_PASSWORD when no admin
 * exists. A database refusing or dropping connections meanwhile is waited
 * for as start-up waits for it (`withStartupRetry`, DB_CONNECT_RETRY_MS).
 */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('AdminBootstrap');
  /** One line for start-up output: whether an admin exists, and how to make one if not. */
  status = '';
  /** The status is a warning (a setting given half): start-up prints it at warn level. */
  statusIsWarning = false;

  constructor(
    private readonly config: AppConfig,
    private readonly users: AdminUsersService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await withStartupRetry('Admin bootstrap', () => this.bootstrap(), {
      budgetMs: this.config.dbConnectRetryMs,
      warn: (msg) => this.logger.warn(msg),
    });
  }

  private async bootstrap(): Promise<void> {
    const { adminEmail, adminPassword } = this.config;
    const existing = await this.users.count();
    if (existing > 0) {
      this.status = `Admin users: ${existing} (log in at POST /api/v1/auth/login)`;
      return;
    }
    if (Boolean(adminEmail) !== Boolean(adminPassword)) {
      const [given, missing] = adminEmail
        ? ['ADMIN_EMAIL', 'ADMIN_PASSWORD']
        : ['ADMIN_PASSWORD', 'ADMIN_EMAIL'];
      this.status = `No admin user yet: ${given} is set but ${missing} is not, so no admin was created; set both and restart`;
      this.statusIsWarning = true;
      return;
    }
    if (!adminEmail || !adminPassword) {
      this.status =
        'No admin user yet: set ADMIN_EMAIL and ADMIN_PASSWORD and restart, or pipe a password into ' +
        '`npm run cli -- admin:create --email you@example.com --name You --super`';
      return;
    }
    try {
      await this.users.create({
        email: adminEmail,
        name: 'Super admin',
        password: adminPassword,
        superAdmin: true,
      });
      this.status = `Created the first super admin (${adminEmail}) from ADMIN_EMAIL/ADMIN_PASSWORD`;
    } catch (err) {
      // A lost connection: tried again from the count (the user may have been created).
      if (transientStartupError(err)) throw err;
      // Another replica may have won the race; the unique email index decides.
      this.status = `First super admin not created: ${(err as Error).message}`;
      this.logger.warn(this.status);
    }
  }
}
