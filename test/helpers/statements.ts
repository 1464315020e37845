import type { Kysely } from 'kysely';

/**
 * Records the SQL of every statement the app sends through Kysely from now until `stop()` (BEGIN
 * and COMMIT are the driver's, not recorded). Restore it in afterEach as well, for a failed test.
 */
export function recordStatements(db: Kysely<any>) {
  const executor = db.getExecutor();
  const proto = Object.getPrototypeOf(executor) as { executeQuery: (...args: unknown[]) => Promise<unknown> };
  const original = proto.executeQuery;
  const seen: string[] = [];
  proto.executeQuery = function (this: unknown, ...args: unknown[]) {
    seen.push(
      String((args[0] as { sql: string }).sql)
        .replace(/\s+/g, ' ')
        .trim(),
    );
    return original.apply(this, args);
  };
  let stopped = false;
  return {
    seen,
    stop: () => {
      if (stopped) return;
      stopped = true;
      proto.executeQuery = original;
    },
  };
}
