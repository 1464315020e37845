import { LRUCache } from 'lru-cache';
import pLimit from 'p-limit';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db, DbHandle } from '../../db/database.js';
import type { Executor } from '../../db/executor.js';
import { isStatementTimeout } from '../../lib/errors.js';
import { maskEmail, maskName, maskPhone } from '../../lib/mask.js';
import { formatAddress, maskCustomerNumber } from './subscriber.format.js';
import { planSearch, structuredProbes, wordPassPlan, type Probe } from './search.query.js';
import {
  inSearchTransaction,
  probeSubscribers,
  providerRegions,
  searchSubscribers,
  serviceLocationsOf,
  type MatchRow,
  type ProbeMatch,
  type ServiceLocationRow,
} from './search.repository.js';

type SubscriptionStatus = 'PENDING' | 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED';

export interface MaskedMatch {
  customer_id: string;
  name_masked: string;
  email_masked: string | null;
  phone_masked: string | null;
  customer_number_masked: string | null;
  service_locations: { address: string | null; unit_label: string | null; subscription_status: SubscriptionStatus }[];
}

/** Only a query with a run of 6+ digits can hold a phone number (the provider's countries read it). */
const mayHoldPhone = (q: string) => (q.match(/\d/g)?.length ?? 0) >= 6;

function masked(r: MatchRow, locations: ServiceLocationRow[]): MaskedMatch {
  const seen = new Set<string>();
  const service_locations = locations
    .map((l) => ({ address: formatAddress(l), unit_label: l.unit_label, subscription_status: l.status as SubscriptionStatus }))
    .filter((l) => {
      const k = `${l.address}|${l.unit_label}|${l.subscription_status}`;
      return seen.has(k) ? false : (seen.add(k), true);
    });
  return {
    customer_id: r.id,
    name_masked: maskName(r.first_name, r.last_name),
    email_masked: maskEmail(r.email),
    phone_masked: maskPhone(r.phone),
    customer_number_masked: maskCustomerNumber(r.customer_number),
    service_locations,
  };
}

/**
 * A probe that a few index entries answer: a whole value, or a name of two or more words (one key of
 * the pair, agent_search_name_query). A name of one word ("Zoë") is every customer of that name, whose
 * entries the index gathers whole, uninterruptibly: the provider's alone since the keyed index, but a
 * large provider's are tens of thousands (bench/README.md), so it runs under the time bound with the
 * address and place probes.
 */
const quickLookup = (p: Probe) => (p.kind === 'name' ? p.names.length >= 2 : p.kind !== 'address' && p.kind !== 'name_location');

/** How long the countries a provider serves are reused for reading phone numbers (ms). */
const REGIONS_TTL_MS = 60_000;

/** match_count is exact up to this many matches; a search that matches more answers it with match_count_capped. */
const MATCH_CAP = 1000;

/** The search ran out of its time bound between two statements. */
class SearchTimeUp extends Error {}

export interface SubscriberSearchDeps {
  db: Db;
  dbHandle: Pick<DbHandle, 'kind'>;
  config: Config;
  log: FastifyBaseLogger;
}

/** Lets the event loop serve what arrived (a health check, another request) before the next statement. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createSubscriberSearchService({ db, dbHandle, config, log }: SubscriberSearchDeps) {
  // At most SEARCH_CONCURRENCY searches run statements at once; the others wait their turn here. A
  // search's statements are CPU-bound in the database, and many more of them at once than it has
  // cores make each cost more CPU, not just wait longer (bench/README.md). A search that waits keeps
  // its bound from arrival, so a burst of searches answers `incomplete` quickly instead of queueing
  // without end.
  // The embedded database runs each statement in this thread and cannot interrupt one
  // (statement_timeout never fires there). A search there runs outside a transaction, so it holds
  // the one connection for one statement at a time, and gives the event loop a turn before each
  // statement: chained back to back, 10 parallel searches kept /healthz waiting 21.7 s (issue 30 §2).
  // Searches there run one at a time: between two statements only one search's next statement
  // waits, not every parallel search's.
  const embedded = dbHandle.kind === 'embedded';
  const turn = embedded ? yieldTurn : async () => undefined;
  const inTurn = pLimit(embedded ? 1 : config.SEARCH_CONCURRENCY);
  // The countries a provider serves change when it gets its first building in a new country: a
  // phone search reuses them for a minute, and reads them again before answering "no match".
  const regionsCache = new LRUCache<string, string[]>({ max: 1000, ttl: REGIONS_TTL_MS });
  async function regionsOf(ex: Executor, providerId: string, fresh = false) {
    let regions = fresh ? undefined : regionsCache.get(providerId);
    if (!regions) regionsCache.set(providerId, (regions = await providerRegions(ex, providerId)));
    return regions;
  }

  const answer = (total: number, rows: ProbeMatch[] | MaskedMatch[], incomplete = false) => ({
    ambiguous: total > 1,
    match_count: Math.min(total, MATCH_CAP),
    match_count_capped: total > MATCH_CAP,
    incomplete,
    matches: rows as MaskedMatch[],
  });

  /**
   * Masked search within one provider, in up to three passes, each only when the one before found
   * nothing: the probes (one statement: the query read as a phone, email, customer number, name,
   * address or name plus place), every word against every field, then the same with one typo in a
   * name word. `match_count` counts the matches of the pass that answered, up to MATCH_CAP.
   * A first pass of whole values and full names is one statement of index lookups, each stopped at
   * the cap, sent alone: a transaction around it (to set its statement_timeout) cost more round
   * trips on every everyday search than the lookups themselves (bench/README.md). Every other
   * statement (a first pass with a name of one word, an address or a name plus place, which can read
   * every customer of a common name, and the word passes) runs in one transaction with the time left
   * of SEARCH_TIMEOUT_MS as its statement_timeout; past it the search answers what it found
   * (nothing: the passes before found nothing, or it would have answered then) with
   * `incomplete: true`, never an error.
   * `started`: when the caller's request arrived (epoch ms); the time bound counts from it.
   */
  function search(providerId: string, q: string, limit: number, started = Date.now()) {
    return inTurn(() => searchNow(providerId, q, limit, started));
  }

  async function searchNow(providerId: string, q: string, limit: number, started: number) {
    // Its bound passed while it waited its turn: nothing was read, and the caller is told so.
    if (Date.now() - started >= config.SEARCH_TIMEOUT_MS) {
      log.info({ timeout_ms: config.SEARCH_TIMEOUT_MS }, 'search: its time bound passed while it waited its turn');
      return answer(0, [], true);
    }
    const phone = mayHoldPhone(q);
    await turn();
    let regions = phone ? await regionsOf(db, providerId) : ['DE'];
    let plan = planSearch(q, regions);
    let probes = structuredProbes(plan);
    const lookupsOnly = probes.every(quickLookup);
    let first = lookupsOnly ? await firstPass(db, providerId, probes, limit) : null;
    if (first && first.total === 0 && phone) {
      // Nothing found with the cached countries: read them again; search again if they changed.
      const now = await regionsOf(db, providerId, true);
      if (now.join() !== regions.join()) {
        regions = now;
        plan = planSearch(q, regions);
        probes = structuredProbes(plan);
        first = await firstPass(db, providerId, probes, limit);
      }
    }
    if (first && (first.total > 0 || plan.kind !== 'tokens'))
      return answer(
        first.total,
        first.rows.map((r) => masked(r, r.service_locations)),
      );
    const wordPlan = wordPassPlan(plan);
    try {
      return await inSearchTransaction(db, embedded, async (ex, setTimeoutMs) => {
        const beforeStatement = async () => {
          await turn();
          const left = config.SEARCH_TIMEOUT_MS - (Date.now() - started);
          if (left <= 0) throw new SearchTimeUp();
          await setTimeoutMs(left);
        };
        if (!first) {
          await beforeStatement();
          const bounded = await firstPass(ex, providerId, probes, limit);
          if (bounded.total > 0)
            return answer(
              bounded.total,
              bounded.rows.map((r) => masked(r, r.service_locations)),
            );
        }
        let found = await searchSubscribers(ex, providerId, wordPlan, limit, false, MATCH_CAP, beforeStatement);
        if (found.total === 0) found = await searchSubscribers(ex, providerId, wordPlan, limit, true, MATCH_CAP, beforeStatement);
        await beforeStatement();
        const locations = await serviceLocationsOf(
          ex,
          found.rows.map((r) => r.id),
        );
        return answer(
          found.total,
          found.rows.map((r) =>
            masked(
              r,
              locations.filter((l) => l.subscriber_id === r.id),
            ),
          ),
        );
      });
    } catch (err) {
      if (!(err instanceof SearchTimeUp) && !isStatementTimeout(err)) throw err;
      log.info(
        { timeout_ms: config.SEARCH_TIMEOUT_MS, words: wordPlan.kind === 'tokens' ? wordPlan.tokens.length : 0 },
        'search: stopped at its time bound',
      );
      return answer(0, [], true);
    }
  }

  async function firstPass(ex: Executor, providerId: string, probes: Probe[], limit: number) {
    return probes.length ? probeSubscribers(ex, providerId, probes, limit, MATCH_CAP) : { rows: [] as ProbeMatch[], total: 0 };
  }

  return { search };
}

/** @public The type of what the container builds. */
export type SubscriberSearchService = ReturnType<typeof createSubscriberSearchService>;
