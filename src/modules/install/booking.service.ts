import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { findLinkToken } from '../auth/index.js';
import { timeZoneOr } from '../../lib/zoned-time.js';
import { candidateWindows, earliestStart, HORIZON_DAYS, isChangeable, WINDOW_CAPACITY, type Window } from './booking.slots.js';
import * as repo from './install.repository.js';

const LINK_NOT_FOUND = 'Booking link not found or expired';
/** Install job states in which the subscriber may book, move or cancel through the link. */
const OPEN_STATES = ['BOOKING_SENT', 'BOOKED'];

export interface BookingView {
  status: string;
  /** IANA zone of the building: windows are offered in its local time (the instants themselves are UTC). */
  time_zone: string;
  bookable: boolean;
  move_in_date: string | null;
  booking: { starts_at: string; ends_at: string } | null;
  windows: { starts_at: string; ends_at: string }[];
}

const iso = (w: Window) => ({ starts_at: w.starts_at.toISOString(), ends_at: w.ends_at.toISOString() });

export interface BookingDeps {
  db: Db;
  clock: Clock;
}

/**
 * The booking link: the token is not consumed on use (the same link books, moves and cancels);
 * it stops working when it expires, and changes stop once the install job left the booking states.
 */
export function createBookingService(deps: BookingDeps) {
  const { db, clock } = deps;

  async function resolve(token: string) {
    const link = await findLinkToken(db, token, ['booking']);
    if (!link || !link.reference_id || link.used_at || link.expires_at.getTime() <= clock.now().getTime()) {
      throw new AppError(404, 'not_found', LINK_NOT_FOUND);
    }
    const ctx = await repo.findBookingContext(db, link.reference_id);
    if (!ctx) throw new AppError(404, 'not_found', LINK_NOT_FOUND);
    return { ...ctx, time_zone: timeZoneOr(ctx.time_zone) };
  }

  /** Free windows: offered (local weekday and hours, lead time, not before move-in) and below capacity. */
  async function freeWindows(ctx: { id: string; provider_id: string; move_in_date: string | null; time_zone: string }) {
    const earliest = earliestStart(clock.now(), ctx.move_in_date, ctx.time_zone);
    const all = candidateWindows(earliest, ctx.time_zone, HORIZON_DAYS);
    const [first] = all;
    const last = all.at(-1);
    if (!first || !last) return [];
    const to = new Date(last.starts_at.getTime() + 1);
    const counts = await repo.bookedCounts(db, ctx.provider_id, first.starts_at, to, ctx.id);
    return all.filter((w) => (counts.get(w.starts_at.toISOString()) ?? 0) < WINDOW_CAPACITY);
  }

  async function view(token: string) {
    const ctx = await resolve(token);
    const bookable = OPEN_STATES.includes(ctx.status);
    const windows = bookable ? await freeWindows(ctx) : [];
    const v: BookingView = {
      status: ctx.status,
      time_zone: ctx.time_zone,
      bookable,
      move_in_date: ctx.move_in_date,
      booking:
        ctx.booking_starts_at && ctx.booking_ends_at && ctx.status === 'BOOKED'
          ? { starts_at: ctx.booking_starts_at.toISOString(), ends_at: ctx.booking_ends_at.toISOString() }
          : null,
      windows: windows.map(iso),
    };
    return { view: v, ctx };
  }

  /** Books a window, or moves the existing booking to another one. */
  async function book(token: string, startsAt: Date) {
    const ctx = await resolve(token);
    return db.transaction().execute(async (trx) => {
      await repo.lockProviderCalendar(trx, ctx.provider_id);
      const job = await repo.lockInstallJob(trx, ctx.id);
      if (!job || !OPEN_STATES.includes(job.status))
        throw new AppError(409, 'conflict', 'This installation can no longer be booked through the link');
      const now = clock.now();
      if (job.status === 'BOOKED' && job.booking_starts_at && !isChangeable(job.booking_starts_at, now)) {
        throw new AppError(409, 'conflict', 'The appointment starts in less than 24 hours and can no longer be moved; contact support');
      }
      const earliest = earliestStart(now, job.move_in_date, ctx.time_zone);
      const offered = candidateWindows(earliest, ctx.time_zone, HORIZON_DAYS).find((w) => w.starts_at.getTime() === startsAt.getTime());
      if (!offered) {
        throw new AppError(
          422,
          'unprocessable',
          `starts_at: not an offered window (weekdays, four-hour windows starting 08:00, 12:00 or 16:00 ${ctx.time_zone} time, at least 24 hours ahead${job.move_in_date ? ', not before the move-in date' : ''})`,
        );
      }
      const counts = await repo.bookedCounts(trx, job.provider_id, offered.starts_at, new Date(offered.starts_at.getTime() + 1), job.id);
      if ((counts.get(offered.starts_at.toISOString()) ?? 0) >= WINDOW_CAPACITY) {
        throw new AppError(409, 'conflict', 'This window has just been fully booked; choose another one');
      }
      const endsAt = offered.ends_at;
      await repo.updateInstallJob(trx, job.id, {
        status: 'BOOKED',
        booking_starts_at: offered.starts_at,
        booking_ends_at: endsAt,
        at: now,
      });
      return { status: 'BOOKED', booking: { starts_at: offered.starts_at.toISOString(), ends_at: endsAt.toISOString() } };
    });
  }

  /** Cancels the booked window; the link stays valid to book another one. */
  async function cancel(token: string) {
    const ctx = await resolve(token);
    return db.transaction().execute(async (trx) => {
      const job = await repo.lockInstallJob(trx, ctx.id);
      if (!job || job.status !== 'BOOKED' || !job.booking_starts_at)
        throw new AppError(409, 'conflict', 'There is no booked appointment to cancel');
      const now = clock.now();
      if (!isChangeable(job.booking_starts_at, now)) {
        throw new AppError(409, 'conflict', 'The appointment starts in less than 24 hours and can no longer be cancelled; contact support');
      }
      await repo.updateInstallJob(trx, job.id, { status: 'BOOKING_SENT', booking_starts_at: null, booking_ends_at: null, at: now });
      return { status: 'BOOKING_SENT', booking: null };
    });
  }

  return { view, book, cancel };
}

/** @public The type of what the container builds. */
export type BookingService = ReturnType<typeof createBookingService>;
