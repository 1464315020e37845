// The installation calendar: pure functions over UTC instants (the clock is passed in).

/** Four-hour windows starting at these UTC hours, Monday to Friday. */
export const WINDOW_START_HOURS_UTC = [8, 12, 16] as const;
export const WINDOW_HOURS = 4;
/** A window must start at least this long after "now" (booking, moving and cancelling alike). */
export const MIN_LEAD_HOURS = 24;
/** Technician crews per provider and window: a window with this many bookings is full. */
export const WINDOW_CAPACITY = 3;
/** How far ahead of the earliest bookable day windows are offered. */
export const HORIZON_DAYS = 28;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface Window {
  starts_at: Date;
  ends_at: Date;
}

const isWeekday = (d: Date) => d.getUTCDay() >= 1 && d.getUTCDay() <= 5;
const dayStart = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

/** The first instant a window may start: lead time from now, and not before the move-in day. */
export function earliestStart(now: Date, moveInDate: string | null): Date {
  const lead = new Date(now.getTime() + MIN_LEAD_HOURS * HOUR);
  if (!moveInDate) return lead;
  const moveIn = new Date(`${moveInDate}T00:00:00.000Z`);
  return moveIn > lead ? moveIn : lead;
}

/** Every weekday window from `earliest` over the horizon (capacity not considered). */
export function candidateWindows(earliest: Date, horizonDays = HORIZON_DAYS): Window[] {
  const out: Window[] = [];
  const first = dayStart(earliest);
  for (let d = 0; d <= horizonDays; d++) {
    const day = new Date(first.getTime() + d * DAY);
    if (!isWeekday(day)) continue;
    for (const h of WINDOW_START_HOURS_UTC) {
      const starts = new Date(day.getTime() + h * HOUR);
      if (starts < earliest) continue;
      out.push({ starts_at: starts, ends_at: new Date(starts.getTime() + WINDOW_HOURS * HOUR) });
    }
  }
  return out;
}

/** Whether `startsAt` is exactly the start of an offered window (aligned, weekday, lead, horizon). */
export function isOfferedStart(startsAt: Date, earliest: Date, horizonDays = HORIZON_DAYS): boolean {
  return candidateWindows(earliest, horizonDays).some((w) => w.starts_at.getTime() === startsAt.getTime());
}

/** A booked window can be moved or cancelled only while it still starts at least the lead time ahead. */
export function isChangeable(bookedStart: Date, now: Date): boolean {
  return bookedStart.getTime() - now.getTime() >= MIN_LEAD_HOURS * HOUR;
}
