import { Propagation, TransactionHost } from '@nestjs-cls/transactional';
import { Socket } from 'node:net';
import { DataSource } from 'typeorm';
import { hotRows, poolOf } from '../../src/database/hot-query';
import { writeBehind } from '../../src/database/lean-transaction';
import type { Tx } from '../../src/database/transaction';
import { createTestContext, insertApp, TestContext } from '../support/test-context';

/**
 * The transactions every service opens (`TransactionHost.withTransaction`,
 * `@Transactional`) run through leanTransaction: they must be real
 * PostgreSQL transactions on one connection, commit and roll back as
 * TypeORM's did, keep SAVEPOINTs for nested ones, and give the connection
 * back to the pool clean whatever happened inside.
 */
describe('leanTransaction (the outermost transaction of every service)', () => {
  let c: TestContext;
  let tx: Tx;
  let appId: number;
  let n = 0;
  beforeAll(async () => {
    c = await createTestContext();
    tx = c.app.get(TransactionHost);
    appId = await insertApp(c.db);
  });
  afterAll(() => c.close());

  const newRef = () => `lean-${++n}`;
  const insert = (ref: string) =>
    tx.tx.query(
      `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'TEST', $2) RETURNING id`,
      [appId, ref],
    );
  const stored = async (ref: string) =>
    (await c.db.query(`SELECT 1 FROM customers WHERE external_id = $1`, [ref])).rowCount;
  const pool = () => poolOf(c.app.get(DataSource));

  it('commits: the write is invisible to other connections until COMMIT, then stored', async () => {
    const ref = newRef();
    let seenOutside: number | null = -1;
    let seenInside: unknown[] = [];
    await tx.withTransaction(async () => {
      await insert(ref);
      seenOutside = await stored(ref);
      seenInside = await hotRows(
        tx.tx,
        `SELECT external_id FROM customers WHERE external_id = $1`,
        [ref],
      );
    });
    expect(seenOutside).toBe(0);
    expect(seenInside).toEqual([{ external_id: ref }]);
    expect(await stored(ref)).toBe(1);
  });

  it('rolls back on a throw and rethrows the error itself', async () => {
    const ref = newRef();
    const boom = new Error('boom');
    await expect(
      tx.withTransaction(async () => {
        await insert(ref);
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await stored(ref)).toBe(0);
  });

  it('rolls back after a failed statement, and the connection serves the next transaction clean', async () => {
    const ref = newRef();
    await expect(
      tx.withTransaction(async () => {
        await insert(ref);
        await insert(ref); // unique (app_id, mode, external_id)
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await stored(ref)).toBe(0);
    // Every pooled connection is idle and none is left inside a transaction.
    for (let i = 0; i < 12; i++) {
      const after = newRef();
      await tx.withTransaction(() => insert(after));
      expect(await stored(after)).toBe(1);
    }
    expect(pool().idleCount).toBe(pool().totalCount);
    const { rows } = await c.db.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
    );
    expect(rows[0].n).toBe(0);
  });

  it('a nested transaction is a SAVEPOINT: its rollback keeps the outer work, which commits', async () => {
    const outer = newRef();
    const inner = newRef();
    await tx.withTransaction(async () => {
      await insert(outer);
      await tx
        .withTransaction(Propagation.Nested, async () => {
          await insert(inner);
          throw new Error('inner fails');
        })
        .catch(() => undefined);
    });
    expect(await stored(outer)).toBe(1);
    expect(await stored(inner)).toBe(0);
  });

  it('a nested transaction that succeeds commits with the outer one, and not before', async () => {
    const inner = newRef();
    let seenOutside: number | null = -1;
    await tx.withTransaction(async () => {
      await tx.withTransaction(Propagation.Nested, () => insert(inner));
      seenOutside = await stored(inner);
    });
    expect(seenOutside).toBe(0);
    expect(await stored(inner)).toBe(1);
  });

  it('savepoints of one transaction, one after another and one inside another, each roll back only their own work', async () => {
    const [outer, first, second, deep, deeper] = [newRef(), newRef(), newRef(), newRef(), newRef()];
    const fails = (ref: string) => async () => {
      await insert(ref);
      throw new Error(`${ref} fails`);
    };
    await tx.withTransaction(async () => {
      await insert(outer);
      await tx.withTransaction(Propagation.Nested, () => insert(first));
      // Same depth, same savepoint name as the first (not released): must not undo the first.
      await tx.withTransaction(Propagation.Nested, fails(second)).catch(() => undefined);
      await tx.withTransaction(Propagation.Nested, async () => {
        await insert(deep);
        await tx.withTransaction(Propagation.Nested, fails(deeper)).catch(() => undefined);
      });
    });
    expect(
      await Promise.all([outer, first, second, deep, deeper].map((ref) => stored(ref))),
    ).toEqual([1, 1, 0, 1, 0]);
  });

  it('a failed statement inside a savepoint leaves the outer transaction usable', async () => {
    const dup = newRef();
    const after = newRef();
    await tx.withTransaction(async () => {
      await insert(dup);
      await tx.withTransaction(Propagation.Nested, () => insert(dup)).catch(() => undefined);
      await insert(after);
    });
    expect([await stored(dup), await stored(after)]).toEqual([1, 1]);
  });

  it('an isolation level is honoured (TypeORM runs those)', async () => {
    const level = await tx.withTransaction({ isolationLevel: 'SERIALIZABLE' }, async () => {
      const rows = await tx.tx.query(`SHOW transaction_isolation`);
      return rows[0].transaction_isolation;
    });
    expect(level).toBe('serializable');
    const plain = await tx.withTransaction(async () => {
      const rows = await tx.tx.query(`SHOW transaction_isolation`);
      return rows[0].transaction_isolation;
    });
    expect(plain).toBe('read committed');
  });

  describe('writeBehind (a write whose answer nobody reads before the commit)', () => {
    const insertSql = `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, 'TEST', $2)`;
    const behind = (ref: string) => writeBehind(tx.tx, insertSql, [appId, ref]);
    /** Backends of this database waiting for a lock on customers. */
    const waitingOnLock = async () =>
      (
        await c.db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO customers%'`,
        )
      ).rows[0].n as number;

    it('START TRANSACTION and SAVEPOINT are sent behind: each leaves in one socket write with the statement after it', async () => {
      const writes: string[] = [];
      const proto = Socket.prototype as unknown as {
        _write(chunk: Buffer, encoding: string, cb: () => void): void;
        _writev(chunks: { chunk: Buffer }[], cb: () => void): void;
      };
      const { _write: write, _writev: writev } = proto;
      proto._write = function (chunk, encoding, cb) {
        writes.push(Buffer.from(chunk).toString('latin1'));
        return write.call(this, chunk, encoding, cb);
      };
      proto._writev = function (chunks, cb) {
        writes.push(chunks.map((c) => Buffer.from(c.chunk).toString('latin1')).join(''));
        return writev.call(this, chunks, cb);
      };
      const [outer, inner] = [newRef(), newRef()];
      try {
        await tx.withTransaction(async () => {
          await insert(outer);
          await tx.withTransaction(Propagation.Nested, () => insert(inner));
        });
      } finally {
        Object.assign(proto, { _write: write, _writev: writev });
      }
      const start = writes.filter((w) => w.includes('START TRANSACTION'));
      const savepoint = writes.filter((w) => w.includes('SAVEPOINT typeorm_1'));
      expect(start).toHaveLength(1);
      expect(start[0]).toContain(outer);
      expect(savepoint).toHaveLength(1);
      expect(savepoint[0]).toContain(inner);
      expect([await stored(outer), await stored(inner)]).toEqual([1, 1]);
    });

    it('returns before PostgreSQL answers; the COMMIT goes behind it, waits for it, and both land', async () => {
      const ref = newRef();
      // Another session holds a lock every INSERT into customers waits for.
      const locker = await c.db.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE customers IN SHARE MODE');
      let returned = false;
      const done = tx.withTransaction(async () => {
        await behind(ref);
        returned = true;
      });
      try {
        for (let i = 0; i < 200 && (await waitingOnLock()) === 0; i++)
          await new Promise((r) => setTimeout(r, 10));
        // The INSERT is on the server, blocked, and the caller went on without its answer.
        expect(await waitingOnLock()).toBe(1);
        expect(returned).toBe(true);
        expect(await stored(ref)).toBe(0);
      } finally {
        await locker.query('COMMIT');
        locker.release();
      }
      await done;
      expect(await stored(ref)).toBe(1);
    });

    it('a failed write aborts the transaction: the statements after it fail, nothing is kept, and its own error is thrown', async () => {
      const [taken, before, after] = [newRef(), newRef(), newRef()];
      await tx.withTransaction(() => insert(taken));
      await expect(
        tx.withTransaction(async () => {
          await insert(before);
          await behind(taken); // unique (app_id, mode, external_id): fails on the server
          await insert(after); // fails too: the transaction is aborted (25P02)
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect([await stored(before), await stored(after)]).toEqual([0, 0]);
    });

    it('a failed write that is the last statement: COMMIT is answered ROLLBACK, and its error is thrown', async () => {
      const [taken, before] = [newRef(), newRef()];
      await tx.withTransaction(() => insert(taken));
      await expect(
        tx.withTransaction(async () => {
          await insert(before);
          await behind(taken);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect(await stored(before)).toBe(0);
      // The connection went back clean: the next transaction on the pool commits.
      const next = newRef();
      for (let i = 0; i < 12; i++) await tx.withTransaction(() => behind(`${next}-${i}`));
      expect(await stored(`${next}-11`)).toBe(1);
      expect(pool().idleCount).toBe(pool().totalCount);
    });

    it('several writes behind, inside a savepoint too, commit in the order sent', async () => {
      const refs = [newRef(), newRef(), newRef()];
      await tx.withTransaction(async () => {
        await behind(refs[0]);
        await tx.withTransaction(Propagation.Nested, () => behind(refs[1]));
        await behind(refs[2]);
      });
      const { rows } = await c.db.query(
        `SELECT external_id FROM customers WHERE external_id = ANY($1) ORDER BY id`,
        [refs],
      );
      expect(rows.map((r: { external_id: string }) => r.external_id)).toEqual(refs);
    });

    it('in a transaction TypeORM runs (an isolation level) it waits for the answer, and fails at the call', async () => {
      const taken = newRef();
      await tx.withTransaction(() => insert(taken));
      let failedAtCall: unknown;
      await tx
        .withTransaction({ isolationLevel: 'SERIALIZABLE' }, async () => {
          await behind(taken).catch((err: unknown) => {
            failedAtCall = err;
            throw err;
          });
        })
        .catch(() => undefined);
      expect(failedAtCall).toMatchObject({ code: '23505' });
    });
  });
});
