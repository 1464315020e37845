import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** What health and metrics read from the database. */
export function createOpsRepository(db: Db) {
  return {
    async ping(): Promise<void> {
      await sql`SELECT 1`.execute(db);
    },

    /** The versioned migrations applied, and the checksum each function file was applied with. */
    async appliedSchema(): Promise<{ migrations: Set<string>; functions: Map<string, string> }> {
      const m = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(db);
      const f = await sql<{ name: string; checksum: string }>`SELECT name, checksum FROM schema_functions`.execute(db);
      return { migrations: new Set(m.rows.map((row) => row.name)), functions: new Map(f.rows.map((row) => [row.name, row.checksum])) };
    },

    /** Per kind: queued jobs already due, running ones, and when the longest-waiting due job fell due. */
    async queueStats(now: Date) {
      // Both halves walk the partial indexes on status (jobs_due_idx, jobs_lease_idx), not the history.
      const r = await sql<{ kind: string; due: string; running: string; oldest_due: Date | null }>`
        SELECT kind,
          count(*) FILTER (WHERE status = 'queued') AS due,
          count(*) FILTER (WHERE status = 'running') AS running,
          min(run_at) FILTER (WHERE status = 'queued') AS oldest_due
        FROM jobs
        WHERE (status = 'queued' AND run_at <= ${now}::timestamptz) OR status = 'running'
        GROUP BY kind`.execute(db);
      return r.rows.map((row) => ({
        kind: row.kind,
        due: Number(row.due),
        running: Number(row.running),
        oldestDue: row.oldest_due ? new Date(row.oldest_due) : null,
      }));
    },

    /** Webhook deliveries not yet settled (delivered or failed for good), and the oldest one's creation. */
    async outboxBacklog() {
      const r = await sql<{ n: string; oldest: Date | null }>`
        SELECT count(*) AS n, min(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'`.execute(db);
      const row = r.rows[0];
      return { pending: Number(row?.n ?? 0), oldest: row?.oldest ? new Date(row.oldest) : null };
    },
  };
}

export type OpsRepository = ReturnType<typeof createOpsRepository>;
