import { randomBytes } from 'node:crypto';

import { DynamicModule, Module } from '@nestjs/common';

import { AuthModule } from '../auth';
import { ClockModule } from '../common/clock/clock.module';
import { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';

/**
 * The slice of the app the admin CLI needs: the database, the transaction
 * host and the auth module (whose AdminUsersService creates users exactly as
 * the API does). No HTTP server, no workers.
 */
@Module({})
export class AdminCliModule {
  static forRoot(databaseUrl: string): DynamicModule {
    const config = new AppConfig({
      port: 0,
      databaseUrl,
      // The CLI signs no tokens and seals no secrets; these only satisfy the auth module's wiring.
      jwtSecret: randomBytes(32).toString('hex'),
      encryptionKeyHex: randomBytes(32).toString('hex'),
      workersEnabled: false,
      logLevel: 'silent',
    });
    return {
      module: AdminCliModule,
      imports: [
        ConfigModule.forRoot(config),
        ClockModule.forRoot(),
        DatabaseModule.forRoot(config),
        AuthModule,
      ],
    };
  }
}
