import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import type { Adapters } from './types.js';

// PLACEHOLDER until the adapters helper lands the simulators.
export function createAdapters(_deps: { db: Db; clock: Clock }): Adapters {
  return {} as Adapters;
}
