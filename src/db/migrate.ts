import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { DbHandle } from './database.js';

// The SQL files stay at the repository root: two levels up from src/db/ (tsx), three from the
// compiled dist/src/db/ (`npm run build`), so one copy serves both.
const here = path.dirname(fileURLToPath(import.meta.url));
export const MIGRATIONS_DIR = [path.resolve(here, '../../migrations'), path.resolve(here, '../../../migrations')].find((d) => existsSync(d)) ?? path.resolve(here, '../../migrations');

const MIGRATION_LOCK = 727_001; // an arbitrary constant shared by every process of this service

/**
 * Applies every migrations/*.sql not yet recorded, in name order, each in its own transaction
 * together with its schema_migrations row. Returns the names applied. Files are never edited after
 * they land: a change is a new file.
 */
export async function migrate(handle: DbHandle, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  return handle.withScriptSession(MIGRATION_LOCK, async (run) => {
    await run(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(handle.db);
    const applied = new Set(done.rows.map((r) => r.name));
    const ran: string[] = [];
    for (const file of files) {
      if (applied.has(file)) continue;
      if (!/^[\w.-]+$/.test(file)) throw new Error(`migration file name not allowed: ${file}`);
      const text = await readFile(path.join(dir, file), 'utf8');
      await run(`${text}\n;INSERT INTO schema_migrations (name) VALUES ('${file}');`);
      ran.push(file);
    }
    return ran;
  });
}
