import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { Mode } from '../common/http/request-context';
import { sql } from '../database/sql';
import { AppCredential } from './app-credential.entity';

/** What an app key check needs to know about the app: kept on the credential rows by the apps feature. */
export interface AppProfile {
  name: string;
  status: string;
}

/** Every query of the app_credentials table. */
@Injectable()
export class AppCredentialsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private get credentials() {
    return this.txHost.tx.getRepository(AppCredential);
  }

  async insertMany(
    rows: Pick<
      AppCredential,
      'appId' | 'mode' | 'apiKey' | 'secretHash' | 'appName' | 'appStatus'
    >[],
  ): Promise<void> {
    await this.credentials.insert(rows);
  }

  /** Replaces one mode's pair; whether the app has one. */
  async replacePair(
    appId: number,
    mode: Mode,
    pair: { apiKey: string; secretHash: string; rotatedAt: Date },
  ): Promise<boolean> {
    const result = await this.credentials.update({ appId, mode }, pair);
    return !!result.affected;
  }

  /** Copies the app's name and status onto its credential rows. */
  async setAppProfile(appId: number, profile: AppProfile): Promise<void> {
    await this.credentials.update({ appId }, { appName: profile.name, appStatus: profile.status });
  }

  byApiKey(apiKey: string): Promise<AppCredential | null> {
    return this.credentials.findOne({ where: { apiKey } });
  }

  /** Which of these app ids exist (every app has credential rows from its creation). */
  async existingAppIds(appIds: readonly number[]): Promise<number[]> {
    if (appIds.length === 0) return [];
    const rows = await sql(this.txHost.tx).rows<{ app_id: string }>(
      `SELECT DISTINCT app_id FROM app_credentials WHERE app_id = ANY($1::bigint[])`,
      [appIds],
    );
    return rows.map((r) => Number(r.app_id));
  }

  ofApp(appId: number): Promise<AppCredential[]> {
    return this.credentials.find({ where: { appId }, order: { mode: 'ASC' } });
  }
}
