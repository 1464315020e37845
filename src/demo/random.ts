import { present } from '../lib/present.js';
// The demo's *shape* (names, phones, months, amounts) comes from a seeded generator, so every load
// looks the same and a test can rely on it; ids and secrets come from crypto and differ per load.

export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: tiny, fast and good enough for fake data. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => present(items[Math.floor(next() * items.length)], 'an item to pick'),
    chance: (p) => next() < p,
  };
}
