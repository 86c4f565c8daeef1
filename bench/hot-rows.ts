/**
 * The client-side CPU of one 30-column statement (the width of a payment row)
 * sent by pg's own `client.query(text, values)` against `hotRows`, which
 * reuses the row shape pg described the last time (src/database/hot-query.ts).
 * Alternating blocks, each statement on the next of four connections in turn
 * (as a pool hands them out); medians of CPU time (user + system) per
 * statement in this process. Writes bench/report-hot-rows.json.
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:hot-rows
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import type { EntityManager } from 'typeorm';
import '../src/database/data-source-options';
import { hotRows } from '../src/database/hot-query';
import { repoRoot, scratchDatabase } from './scratch-database';
import { median } from './stats';

const BLOCKS = Number(process.env.BENCH_HOT_ROWS_BLOCKS ?? 9);
const PER_BLOCK = Number(process.env.BENCH_HOT_ROWS_STATEMENTS ?? 3000);
const CONNECTIONS = 4;

async function main(): Promise<void> {
  const scratch = await scratchDatabase('hotrows');
  const clients = Array.from(
    { length: CONNECTIONS },
    () => new Client({ connectionString: scratch.url, options: '-c timezone=UTC' }),
  );
  try {
    for (const client of clients) await client.connect();
    // A payment row's mix: bigints, texts and time stamps.
    const columns = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0
        ? `${i}::bigint AS "amount${i}"`
        : i % 3 === 1
          ? `'text ${i}'::text AS "label${i}"`
          : `now() AS "at${i}"`,
    ).join(', ');
    const sql = `SELECT ${columns} WHERE $1::int = 1`;
    // hotRows on a transaction's connection, as every statement of a payment create runs.
    const managers = clients.map(
      (client) =>
        ({
          queryRunner: { isTransactionActive: true, databaseConnection: client },
        }) as unknown as EntityManager,
    );
    let turn = 0;
    const next = () => (turn = (turn + 1) % CONNECTIONS);
    const viaPg = () => clients[next()].query(sql, [1]).then((r) => r.rows);
    const viaHotRows = () => hotRows(managers[next()], sql, [1]);
    const block = async (run: () => Promise<unknown>) => {
      const started = process.cpuUsage();
      for (let i = 0; i < PER_BLOCK; i++) await run();
      const used = process.cpuUsage(started);
      return (used.user + used.system) / PER_BLOCK;
    };
    await block(viaPg); // warm-up, both alike
    await block(viaHotRows);
    const pg: number[] = [];
    const hot: number[] = [];
    for (let i = 0; i < BLOCKS; i++) {
      pg.push(await block(viaPg));
      hot.push(await block(viaHotRows));
    }
    const round = (x: number) => Math.round(x * 10) / 10;
    const report = {
      generatedAt: new Date().toISOString(),
      node: process.version,
      statement: 'SELECT of 30 columns (10 bigint, 10 text, 10 timestamptz), one row',
      statementsPerBlock: PER_BLOCK,
      connections: CONNECTIONS,
      cpuUsPerStatement: {
        pg: round(median(pg)),
        hotRows: round(median(hot)),
        byBlock: pg.map((p, i) => ({ pg: round(p), hotRows: round(hot[i]) })),
      },
      hotRowsOverPg: Math.round((median(hot) / median(pg)) * 100) / 100,
    };
    console.log(JSON.stringify(report, null, 2));
    writeFileSync(join(repoRoot, 'bench', 'report-hot-rows.json'), JSON.stringify(report, null, 2));
    console.log('written to bench/report-hot-rows.json');
  } finally {
    for (const client of clients) await client.end().catch(() => undefined);
    await scratch.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
