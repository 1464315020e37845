import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time (user + system) from /proc: of the server process, and of every PostgreSQL process on the
 * machine (the benchmark's database is the only busy one). A scenario's CPU per request is steadier
 * than its req/s on a machine whose speed drifts or that other work shares: it counts what a request
 * costs, not how much of the machine the load got. Linux only; elsewhere null.
 */
const TICK_MS = 10; // USER_HZ is 100 on every Linux this runs on

function ticksOf(pid: string): { comm: string; ticks: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    // After "pid (comm) ": state is field 0, utime field 11, stime field 12.
    return { comm: stat.slice(stat.indexOf('(') + 1, close), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

export interface CpuSnapshot {
  server: number;
  /** Ticks per PostgreSQL process: a backend that starts or ends between two snapshots must not count as a jump. */
  postgres: Map<string, number>;
}

export function cpuSnapshot(serverPid: number): CpuSnapshot | null {
  const server = ticksOf(String(serverPid));
  if (!server) return null;
  const postgres = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const p = ticksOf(pid);
    if (p?.comm.startsWith('postgres')) postgres.set(pid, p.ticks);
  }
  return { server: server.ticks, postgres };
}

/**
 * Milliseconds of CPU between two snapshots. A PostgreSQL process that began in between counts in
 * full; one that ended in between is lost (the pool keeps its connections while a load runs).
 */
export function cpuBetween(before: CpuSnapshot | null, after: CpuSnapshot | null): { server: number; postgres: number } | null {
  if (!before || !after) return null;
  let postgres = 0;
  for (const [pid, ticks] of after.postgres) postgres += ticks - (before.postgres.get(pid) ?? 0);
  return { server: (after.server - before.server) * TICK_MS, postgres: postgres * TICK_MS };
}

/** Microseconds of CPU per request, from milliseconds spent over `requests`. */
export function cpuPerRequest(spent: { server: number; postgres: number }, requests: number) {
  if (requests <= 0) return null;
  const us = (ms: number) => Math.round((ms * 1000) / requests);
  return { server_us: us(spent.server), postgres_us: us(spent.postgres) };
}
