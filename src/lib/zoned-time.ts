import { present } from './present.js';
// Wall-clock time in an IANA time zone, through Node's ICU (Intl): no date library needed.
// Billing stays in UTC (lib/dates.ts); installation appointments are local to the building.

/** The zone of a building whose region (and country) has none recorded: the operator's home zone. */
const DEFAULT_TIME_ZONE = 'Europe/Berlin';

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether ICU knows the zone (the database CHECK refuses unknown ones; this guards the reader). */
function isKnownTimeZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone to compute in: the recorded one when ICU knows it, else the default. */
export const timeZoneOr = (zone: string | null | undefined): string => (zone && isKnownTimeZone(zone) ? zone : DEFAULT_TIME_ZONE);

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClock(zone: string, at: Date): WallClock {
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(at)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const get = (type: string) => present(p[type], `the ${type} of a formatted date`);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

/** The zone's offset from UTC at an instant, in ms (e.g. +3,600,000 for CET). */
function offsetMs(zone: string, at: Date): number {
  const w = wallClock(zone, at);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

/** The calendar date (YYYY-MM-DD) an instant falls on in the zone. */
export function localDate(zone: string, at: Date): string {
  const w = wallClock(zone, at);
  return `${String(w.year).padStart(4, '0')}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/** "HH:MM" of an instant in the zone. */
export function localTime(zone: string, at: Date): string {
  const w = wallClock(zone, at);
  return `${String(w.hour).padStart(2, '0')}:${String(w.minute).padStart(2, '0')}`;
}

/** Day of the week of a calendar date: 0 Sunday … 6 Saturday (the date itself, no zone involved). */
export const weekdayOf = (date: string): number => new Date(`${date}T00:00:00.000Z`).getUTCDay();

/**
 * The instant of a wall-clock time (`date` at `hour`:00) in the zone, correct on both sides of a
 * daylight-saving change: the offsets a day before and a day after are both tried. An hour the
 * change repeats takes the first of the two; an hour it skips (02:30 on a spring-forward night)
 * is read with the offset before the change, so it lands one hour later on the clock.
 */
export function zonedInstant(zone: string, date: string, hour: number): Date {
  const [y = NaN, m = NaN, d = NaN] = date.split('-').map(Number);
  const naive = Date.UTC(y, m - 1, d, hour);
  const DAY = 86_400_000;
  const before = naive - offsetMs(zone, new Date(naive - DAY));
  const after = naive - offsetMs(zone, new Date(naive + DAY));
  const valid = [before, after].filter((t) => t + offsetMs(zone, new Date(t)) === naive);
  return new Date(valid.length ? Math.min(...valid) : before);
}

/** "2026-11-16 10:15 Europe/Berlin": an instant as the zone's wall clock, the zone named. */
export const formatLocal = (zone: string, at: Date): string => `${localDate(zone, at)} ${localTime(zone, at)} ${zone}`;
