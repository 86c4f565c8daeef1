import { types } from 'pg';
import { DataSourceOptions } from 'typeorm';
import { loadMigrations } from '../../migrations';
import { SnakeNamingStrategy } from './snake-naming.strategy';

// BIGINT (int8) comes back as a JS number, refusing values a double cannot hold exactly.
types.setTypeParser(20, (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error('BIGINT value outside the safe integer range');
  return n;
});

/** The one place that says how Joma talks to PostgreSQL. */
export function dataSourceOptions(
  url: string,
  opts: { poolSize?: number; applicationName?: string } = {},
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    migrations: loadMigrations(),
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    logging: false,
    entities: [],
    extra: {
      max: opts.poolSize ?? 10,
      application_name: opts.applicationName ?? 'joma',
      options: '-c timezone=UTC',
    },
  };
}
