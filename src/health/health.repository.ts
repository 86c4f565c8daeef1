import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The readiness probe's one query. */
@Injectable()
export class HealthRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}
