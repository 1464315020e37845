import { mkdirSync } from 'node:fs';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { prepareStatements } from './prepared.js';
import type { DB } from './types.js';

export type Db = Kysely<DB>;

// DATE stays a 'YYYY-MM-DD' string (no local-midnight Date); bigint (int8) and numeric stay strings.
pg.types.setTypeParser(1082, (v: string) => v);

export interface DbHandle {
  db: Db;
  kind: 'postgres' | 'embedded';
  /** The embedded instance, for tests that clone or dump it. */
  pglite?: PGlite;
  /**
   * Runs `fn` on one session holding the advisory lock `lockId`, so several processes starting
   * together migrate one at a time. `run` sends a script (several statements) in one transaction,
   * or with `{ transaction: false }` one statement alone (CREATE INDEX CONCURRENTLY cannot run in a
   * transaction); `query` reads on the same session (one statement with parameters, its rows): a
   * second connection could wait for the pool's last one, which this session holds.
   */
  withScriptSession<T>(lockId: number, fn: (run: ScriptRunner, query: SessionQuery) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * Statements each connection runs once when it opens, before anything else (compiling the PL/pgSQL
   * functions of the hot reads), and opens the pool's connections now so the first requests find them
   * warm. Run after migrations (the statements call their functions); a failing one is ignored.
   * A no-op on the embedded database (one in-process connection, warm after its first use).
   */
  warmUp(statements: readonly CompiledQuery[]): Promise<void>;
  /** The pg pool's clients right now (GET /metrics); absent on the embedded database (one in-process connection). */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
}

export type ScriptRunner = (script: string, opts?: { transaction?: boolean }) => Promise<void>;
export type SessionQuery = <R extends object>(text: string, params?: unknown[]) => Promise<R[]>;

/** How long a process waiting for another's script session sleeps between two tries of its lock (ms). */
const LOCK_RETRY_MS = 250;

export interface DbOptions {
  databaseUrl?: string;
  poolSize?: number;
  embeddedDir?: string; // 'memory://' for an in-memory database
  pglite?: PGlite; // an already-open embedded database (tests)
}

export async function createDb(opts: DbOptions): Promise<DbHandle> {
  if (opts.databaseUrl) {
    const max = opts.poolSize ?? 10;
    // Idle connections stay open (pg closes them after 10 s by default): each new one would pay its
    // connect and its warm-up again on the request that opens it. At most `max` per process.
    // allowExitOnIdle: idle connections never keep a script's process alive (the server has its listener).
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max, idleTimeoutMillis: 0, allowExitOnIdle: true });
    let warm: readonly CompiledQuery[] = [];
    // A dropped connection (database restart, failover) must not crash the process: an idle client's
    // error reaches the pool, a checked-out client's reaches the client itself. The query in flight
    // fails (answered 503) and the pool replaces the broken client.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => {
      client.on('error', () => undefined);
      prepareStatements(client);
      // Queued ahead of the first query of whoever checked the client out.
      for (const q of warm) void client.query(q.sql, [...q.parameters]).catch(() => undefined);
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      kind: 'postgres',
      async withScriptSession(lockId, fn) {
        const client = await pool.connect();
        try {
          // Tried, not waited for: a session waiting in pg_advisory_lock holds a snapshot, and CREATE
          // INDEX CONCURRENTLY in the session holding the lock waits for every older snapshot, so two
          // processes migrating at once would wait for each other.
          while (!(await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [lockId])).rows[0]?.ok) {
            await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
          }
          // A query without parameters uses the simple protocol, which takes several statements.
          return await fn(
            async (script, opts) => {
              if (opts?.transaction === false) {
                await client.query(script);
                return;
              }
              await client.query('BEGIN');
              try {
                await client.query(script);
                await client.query('COMMIT');
              } catch (err) {
                await client.query('ROLLBACK');
                throw err;
              }
            },
            async <R extends object>(text: string, params: unknown[] = []) => (await client.query<R>(text, params)).rows,
          );
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [lockId]).catch(() => undefined);
          client.release();
        }
      },
      async warmUp(statements) {
        warm = statements;
        const clients = await Promise.all(Array.from({ length: max }, () => pool.connect()));
        // Each runs its warm-up before this, the first statement it is given.
        await Promise.all(clients.map((c) => c.query('SELECT 1').finally(() => c.release())));
      },
      async close() {
        await db.destroy();
        // Kysely ends the pool only once it has run a query through it: a handle used only by
        // withScriptSession (a migration) kept its session open, so a test template could not be
        // cloned ("being accessed by other users") until the test process ended.
        if (!pool.ending) await pool.end();
      },
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 }),
    };
  }
  const pglite = opts.pglite ?? (await openEmbedded(opts.embeddedDir ?? 'var/db'));
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'embedded',
    pglite,
    // The embedded database admits one process, so no lock is needed.
    withScriptSession: (_lockId, fn) =>
      fn(
        (script, opts) =>
          opts?.transaction === false
            ? pglite.exec(script).then(() => undefined)
            : pglite.transaction(async (tx) => void (await tx.exec(script))),
        async <R extends object>(text: string, params: unknown[] = []) => (await pglite.query<R>(text, params)).rows,
      ),
    warmUp: async () => undefined,
    close: () => db.destroy(),
  };
}

export async function openEmbedded(dir: string, loadDataDir?: Blob): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  return PGlite.create(dir, {
    extensions: { pg_trgm },
    parsers: { 1082: (v: string) => v },
    ...(loadDataDir ? { loadDataDir } : {}),
  });
}
