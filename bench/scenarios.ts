import type { Kysely } from 'kysely';
import type { DB } from '../src/db/types.js';

export interface Dataset {
  customers: number;
  addresses: number;
  provider_id: string;
  api_key: string;
  plan_version_ids: string[];
  queries: { class: string; q: string; expect_id: string }[];
  sessions: { customer_id: string; subscription_id: string; token: string }[];
  autocomplete: string[];
  free_locations: string[];
}

export interface Measured {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  max_ms?: number;
  /** What the scenario counts as its requests (HTTP requests, deliveries, port jobs): CPU per request divides by it. */
  requests?: number;
  /** webhook_delivery: another provider's single events sent while the burst drains, from commit to arrival. */
  other_provider?: { events: number; p50_ms: number; max_ms: number; lost: number };
  /** agent_search_adversarial: the caller forms (search/caller-forms.json) that ended at the time bound. */
  caller_forms_incomplete?: string[];
}

export interface Scenario {
  name: string;
  target: string;
  requests?: unknown[];
  connections?: number;
  /** A correctness pass before the load (e.g. every query class finds its row). */
  check?: () => Promise<Record<string, unknown>>;
  /** Leaves work for the server's job workers (measured after its floor, not alternating with it). */
  background?: boolean;
  /** A scenario that measures itself instead of an autocannon run. */
  custom?: () => Promise<Measured>;
  meets(m: Measured, ratio: number, check?: Record<string, unknown>): boolean;
}

interface Ctx {
  base: string;
  db: Kysely<DB>;
  receiverCount: () => number;
}

function cycle<T>(xs: T[]) {
  let i = 0;
  return () => xs[i++ % xs.length];
}

/** The id of a search match, whatever the agent surface names it. */
const matchId = (m: any): string => m.customer_id ?? m.id;

export function scenarios(d: Dataset, ctx: Ctx): Scenario[] {
  const key = { 'x-api-key': d.api_key, 'content-type': 'application/json' };
  const nextQuery = cycle(d.queries);
  const nextSession = cycle(d.sessions);
  const nextPrefix = cycle(d.autocomplete);
  return [
    {
      name: 'agent_search_mixed',
      target: '>= 25% of SELECT 1 floor, p99 <= 20 ms, source row found >= 99%',
      requests: [
        {
          method: 'GET',
          headers: key,
          setupRequest: (req: any) => ({ ...req, path: `/agent/customers/search?q=${encodeURIComponent(nextQuery()!.q)}` }),
        },
      ],
      async check() {
        const byClass: Record<string, { n: number; found: number }> = {};
        for (const q of d.queries.slice(0, 2000)) {
          const r = await fetch(`${ctx.base}/agent/customers/search?q=${encodeURIComponent(q.q)}&limit=25`, { headers: key });
          const body: any = r.ok ? await r.json() : { matches: [] };
          const c = (byClass[q.class] ??= { n: 0, found: 0 });
          c.n++;
          if ((body.matches ?? []).some((m: any) => matchId(m) === q.expect_id)) c.found++;
        }
        const n = Object.values(byClass).reduce((a, c) => a + c.n, 0);
        const found = Object.values(byClass).reduce((a, c) => a + c.found, 0);
        return { queries: n, found_rate: n ? Math.round((found / n) * 10000) / 10000 : 0, by_class: byClass };
      },
      meets: (m, ratio, check) => ratio >= 0.25 && m.p99_ms <= 20 && Number(check?.found_rate ?? 0) >= 0.99 && m.errors === 0,
    },
    {
      name: 'agent_search_adversarial',
      target:
        'every query <= 100 ms (max_ms), first run and repeat, one at a time over one connection, no error; no caller form ' +
        '(search/caller-forms.json) incomplete',
      async custom() {
        const { adversarialSearch } = await import('./search/adversarial.js');
        return adversarialSearch(ctx.base, d.api_key);
      },
      meets: (m) => (m.max_ms ?? Infinity) <= 100 && m.errors === 0 && m.caller_forms_incomplete?.length === 0,
    },
    {
      name: 'agent_profile_verified',
      target: '>= 40% of SELECT 1 floor',
      requests: [
        {
          method: 'GET',
          setupRequest: (req: any) => {
            const s = nextSession();
            return { ...req, path: `/agent/customers/${s!.customer_id}`, headers: { ...key, 'x-verified-session': s!.token } };
          },
        },
      ],
      meets: (m, ratio) => ratio >= 0.4 && m.errors === 0,
    },
    (() => {
      // A preview of a SUSPENDED subscription is a correct 409 (subscription_not_active), not a
      // failure: the scenario previews only the sessions whose subscription is ACTIVE (the dataset
      // suspends every 33rd customer), and reports how many it left out.
      let previewable = d.sessions;
      let k = 0;
      const s: Scenario = {
        name: 'plan_change_preview',
        target: '>= 30% of SELECT 1 floor',
        async check() {
          const active = await ctx.db
            .selectFrom('subscriptions')
            .select('id')
            .where(
              'id',
              'in',
              d.sessions.map((x) => x.subscription_id),
            )
            .where('status', '=', 'ACTIVE')
            .execute();
          const ids = new Set(active.map((r) => r.id));
          previewable = d.sessions.filter((x) => ids.has(x.subscription_id));
          return {
            sessions: d.sessions.length,
            previewed: previewable.length,
            left_out_not_active: d.sessions.length - previewable.length,
          };
        },
        requests: [
          {
            method: 'POST',
            setupRequest: (req: any) => {
              const s = previewable[k++ % previewable.length]!;
              return {
                ...req,
                path: `/agent/customers/${s.customer_id}/plan-change/preview`,
                headers: { ...key, 'x-verified-session': s.token },
                body: JSON.stringify({ subscription_id: s.subscription_id, plan_version_id: d.plan_version_ids[2] }),
              };
            },
          },
        ],
        meets: (m, ratio) => ratio >= 0.3 && m.errors === 0,
      };
      return s;
    })(),
    {
      name: 'serviceability_autocomplete',
      target: '>= 30% of SELECT 1 floor, p99 <= 20 ms',
      requests: [
        {
          method: 'GET',
          headers: key,
          setupRequest: (req: any) => ({ ...req, path: `/serviceability/autocomplete?q=${encodeURIComponent(nextPrefix()!)}` }),
        },
      ],
      meets: (m, ratio) => ratio >= 0.3 && m.p99_ms <= 20 && m.errors === 0,
    },
    (() => {
      let n = 0;
      const stamp = Date.now().toString(36);
      let free: string[] = d.free_locations;
      const s: Scenario = {
        name: 'provider_initiated_provisioning',
        target: '>= 3% of SELECT 1 floor, zero errors',
        connections: 8,
        background: true,
        async check() {
          // Earlier runs used some ports: take only those still free.
          const taken = await ctx.db
            .selectFrom('subscriptions')
            .innerJoin('locations', 'locations.id', 'subscriptions.location_id')
            .select('locations.location_hash')
            .where('locations.location_hash', 'in', d.free_locations)
            .where('subscriptions.status', 'in', ['PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED'])
            .execute();
          const used = new Set(taken.map((t) => t.location_hash));
          free = d.free_locations.filter((h) => !used.has(h));
          return { free_ports: free.length };
        },
        requests: [
          {
            method: 'POST',
            headers: key,
            path: '/provisioning/provider-initiated',
            setupRequest: (req: any) => {
              const i = n++;
              return {
                ...req,
                body: JSON.stringify({
                  plan_version_id: d.plan_version_ids[i % 3],
                  location_hash: free[i % free.length],
                  subscriber: { email: `bench-${stamp}-${i}@load.test`, first_name: 'Load', last_name: `Test${i}` },
                }),
              };
            },
          },
        ],
        meets: (m, ratio) => ratio >= 0.03 && m.errors === 0,
      };
      return s;
    })(),
    {
      name: 'webhook_delivery',
      target:
        ">= 2,000 deliveries/s drained from the outbox; another provider's single events, sent while the burst drains, arrive within 5 s (max)",
      async custom() {
        const { drainRate } = await import('./webhook-drain.js');
        return drainRate(ctx, d, 20_000);
      },
      meets: (m) => m.rps >= 2000 && m.errors === 0 && !!m.other_provider && m.other_provider.lost === 0 && m.other_provider.max_ms <= 5000,
    },
    {
      name: 'port_job_fairness',
      target:
        "2,000 port jobs of one provider drain with zero errors; another provider's single port jobs, queued meanwhile, each done within 5 s (max)",
      async custom() {
        const { portFairness } = await import('./port-fairness.js');
        return portFairness(ctx, d, 2_000);
      },
      meets: (m) => m.errors === 0 && !!m.other_provider && m.other_provider.lost === 0 && m.other_provider.max_ms <= 5000,
    },
  ];
}
