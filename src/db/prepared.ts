import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Turns every parameterised statement Kysely sends into a named prepared statement, so Postgres
 * parses and plans each statement text once per connection instead of on every call (25–40 µs a
 * statement on the hot /agent reads; see bench/README.md). Kysely itself only sends unnamed ones.
 *
 * Bounded on both sides: at most MAX_TEXTS distinct texts get a name process-wide and at most
 * MAX_PER_CONNECTION are prepared on one connection; anything beyond runs unnamed as before.
 * Statements whose text varies with the data (an IN list of n values, an n-row insert) therefore
 * cannot grow a connection's prepared set without limit. Transaction control stays unnamed.
 */
const MAX_TEXTS = 2000;
const MAX_PER_CONNECTION = 500;
const MAX_TEXT_LENGTH = 20_000;

const names = new Map<string, string>();
const UNNAMED = /^\s*(begin|commit|rollback|start transaction|savepoint|release|set|show)\b/i;

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name !== undefined) return name;
  if (names.size >= MAX_TEXTS || text.length > MAX_TEXT_LENGTH || UNNAMED.test(text)) return undefined;
  name = `k_${createHash('sha1').update(text).digest('base64url')}`;
  names.set(text, name);
  return name;
}

type Query = (...args: unknown[]) => unknown;

/** Postgres refuses to run a prepared statement whose result columns changed (a migration added one). */
const isStalePlan = (err: unknown) =>
  (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test(String((err as Error).message));

/** Wraps a pool client's `query` once, when the pool opens the connection. */
export function prepareStatements(client: pg.PoolClient): void {
  const prepared = new Map<string, string>(); // statement name -> the name used on this connection
  let renamed = 0;
  const query = client.query.bind(client) as Query;
  (client as unknown as { query: Query }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text !== 'string' || !Array.isArray(values) || args.length !== 2) return query(...args);
    const name = nameOf(text);
    if (name === undefined || (!prepared.has(name) && prepared.size >= MAX_PER_CONNECTION)) return query(text, values);
    const local = prepared.get(name) ?? name;
    prepared.set(name, local);
    return (query({ name: local, text, values }) as Promise<unknown>).catch((err: unknown) => {
      if (!isStalePlan(err)) throw err;
      // The old statement stays on the server under its name; this connection prepares the text
      // again under a new one. Outside a transaction nothing ran, so the call is repeated once.
      prepared.set(name, `${name}_${++renamed}`);
      if (client.getTransactionStatus?.() !== 'I') throw err;
      return query({ name: prepared.get(name), text, values });
    });
  };
}
