// Calendar rules are computed in UTC on YYYY-MM-DD strings, never on local time.

export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function parseIsoDate(s: string): Date {
  return new Date(`${s}T00:00:00.000Z`);
}

export function monthStart(d: Date): string {
  return `${d.toISOString().slice(0, 7)}-01`;
}

export function addMonths(month: string, n: number): string {
  const d = parseIsoDate(month);
  const r = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));
  return isoDate(r);
}

export function addDays(date: string, n: number): string {
  const d = parseIsoDate(date);
  return isoDate(new Date(d.getTime() + n * 86_400_000));
}

export function daysInMonth(d: Date): number {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
}

/** The billing day of a month as a date: day `day` of the month that starts at `month`. */
export function dayOfMonth(month: string, day: number): string {
  return `${month.slice(0, 8)}${String(day).padStart(2, '0')}`;
}
