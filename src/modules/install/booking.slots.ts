// The installation calendar: pure functions (the clock is passed in), in the building's own time
// zone (ARCHITECTURE.md rule 8): windows start at local hours, weekdays are local weekdays, the
// move-in day starts at local midnight. Instants stay UTC Dates; only the calendar is local.
import { addDays } from '../../lib/dates.js';
import { localDate, weekdayOf, zonedInstant } from '../../lib/zoned-time.js';

/** Four-hour windows starting at these local hours, Monday to Friday. */
const WINDOW_START_HOURS = [8, 12, 16] as const;
const WINDOW_HOURS = 4;
/** A window must start at least this long after "now" (booking, moving and cancelling alike): elapsed hours, so a DST night does not shorten it. */
export const MIN_LEAD_HOURS = 24;
/** Technician crews per provider and window: a window with this many bookings is full. */
export const WINDOW_CAPACITY = 3;
/** How far ahead of the earliest bookable day windows are offered. */
export const HORIZON_DAYS = 28;

const HOUR = 3_600_000;

export interface Window {
  starts_at: Date;
  ends_at: Date;
}

const isWeekday = (date: string) => weekdayOf(date) >= 1 && weekdayOf(date) <= 5;

/** The first instant a window may start: lead time from now, and not before local midnight of the move-in day. */
export function earliestStart(now: Date, moveInDate: string | null, zone: string): Date {
  const lead = new Date(now.getTime() + MIN_LEAD_HOURS * HOUR);
  if (!moveInDate) return lead;
  const moveIn = zonedInstant(zone, moveInDate, 0);
  return moveIn > lead ? moveIn : lead;
}

/** Every weekday window from `earliest` over the horizon of local days (capacity not considered). */
export function candidateWindows(earliest: Date, zone: string, horizonDays = HORIZON_DAYS): Window[] {
  const out: Window[] = [];
  const first = localDate(zone, earliest);
  for (let d = 0; d <= horizonDays; d++) {
    const day = addDays(first, d);
    if (!isWeekday(day)) continue;
    for (const h of WINDOW_START_HOURS) {
      const starts = zonedInstant(zone, day, h);
      if (starts < earliest) continue;
      // The end is a local hour too: start + 4 h, since DST changes happen at night.
      out.push({ starts_at: starts, ends_at: zonedInstant(zone, day, h + WINDOW_HOURS) });
    }
  }
  return out;
}

/** A booked window can be moved or cancelled only while it still starts at least the lead time ahead. */
export function isChangeable(bookedStart: Date, now: Date): boolean {
  return bookedStart.getTime() - now.getTime() >= MIN_LEAD_HOURS * HOUR;
}
