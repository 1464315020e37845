import type { Transaction } from 'kysely';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import type { DB } from '../../db/types.js';
import { addDays } from '../../lib/dates.js';
import { newId } from '../../lib/ids.js';
import { createLinkToken } from '../auth/index.js';
import { installationBookingMail, mailBrand } from '../../mail/templates.js';
import { localDate, timeZoneOr, zonedInstant } from '../../lib/zoned-time.js';
import { MIN_LEAD_HOURS } from './booking.slots.js';
import { installAddressLine } from './booking-address.js';
import * as repo from './install.repository.js';

const BOOKING_INVITE_JOB = 'install.booking_invite';

interface InstallDeps {
  clock: Clock;
  jobs: JobQueue;
  mailer: Mailer;
  config: Config;
}

export interface RaiseInstallJob {
  providerId: string;
  /** The provider's booking window; the building's region may set its own. */
  bookingWindowDays: number;
  subscriptionId: string;
  unitId: string;
  kind: 'technician_visit' | 'cpe_shipment';
  /** Third-line buildings: the subscriber books the technician through an emailed link. */
  bookingLink: boolean;
  moveInDate: string | null;
  subscriber: { id: string; email: string; firstName: string };
}

/**
 * The install job of a new PENDING_INSTALL subscription, in the caller's transaction.
 * Third-line: the booking invitation goes out now when the move-in date is inside the booking
 * window of the building's region (the provider's when the region sets none), or unknown;
 * otherwise the job is BOOKING_HELD and a scheduled job sends it at local midnight of the first
 * day the move-in date is inside the window (days counted in the building's time zone).
 */
export async function raiseInstallJob(trx: Transaction<DB>, deps: InstallDeps, r: RaiseInstallJob) {
  const now = deps.clock.now();
  const id = newId();
  let status: repo.InstallStatus = 'CREATED';
  let sendAt: Date | null = null;
  if (r.bookingLink) {
    const calendar = await repo.findUnitCalendar(trx, r.unitId);
    const zone = timeZoneOr(calendar?.time_zone);
    const windowDays = calendar?.booking_window_days ?? r.bookingWindowDays;
    const today = localDate(zone, now);
    const releaseDay = r.moveInDate ? addDays(r.moveInDate, -windowDays) : today;
    if (releaseDay <= today) status = 'BOOKING_SENT';
    else {
      status = 'BOOKING_HELD';
      sendAt = zonedInstant(zone, releaseDay, 0);
    }
  }
  await repo.insertInstallJob(trx, {
    id,
    providerId: r.providerId,
    subscriptionId: r.subscriptionId,
    unitId: r.unitId,
    kind: r.kind,
    status: status === 'BOOKING_SENT' ? 'BOOKING_HELD' : status,
    moveInDate: r.moveInDate,
    at: now,
  });
  if (status === 'BOOKING_SENT') await sendBookingInvitation(trx, deps, id, r.subscriber);
  else if (sendAt) {
    await deps.jobs.enqueue(trx, {
      kind: BOOKING_INVITE_JOB,
      payload: { install_job_id: id },
      runAt: sendAt,
      dedupeKey: `booking-invite:${id}`,
      providerId: r.providerId,
      subscriptionId: r.subscriptionId,
    });
  }
  return { id, status };
}

/** Creates the booking link, mails it and moves the job BOOKING_HELD → BOOKING_SENT. */
async function sendBookingInvitation(
  trx: Transaction<DB>,
  deps: InstallDeps,
  installJobId: string,
  subscriber: { id: string; email: string; firstName: string },
) {
  const now = deps.clock.now();
  const job = await repo.lockInstallJob(trx, installJobId);
  if (!job || job.status !== 'BOOKING_HELD') return false;
  const { token, expiresAt } = await createLinkToken(trx, deps.clock, {
    purpose: 'booking',
    subscriberId: subscriber.id,
    referenceId: installJobId,
  });
  const ctx = await repo.findBookingContext(trx, installJobId);
  if (!ctx) return false;
  const address = installAddressLine(ctx);
  const content = installationBookingMail(
    {
      brand: mailBrand({ name: ctx.provider_name, support_email: ctx.support_email, branding: ctx.branding }),
      baseUrl: deps.config.publicBaseUrl,
    },
    {
      firstName: subscriber.firstName,
      token,
      address,
      moveInDate: job.move_in_date,
      expiresAt,
      minLeadHours: MIN_LEAD_HOURS,
      timeZone: timeZoneOr(ctx.time_zone),
    },
  );
  await deps.mailer.enqueue(trx, { to: subscriber.email, ...content });
  await repo.updateInstallJob(trx, installJobId, { status: 'BOOKING_SENT', booking_invite_sent_at: now, at: now });
  return true;
}

export interface InstallJobsDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  mailer: Mailer;
  config: Config;
}

/** The scheduled release of a held invitation (idempotent: a job no longer held is left alone). */
export function registerInstallJobs(deps: InstallJobsDeps) {
  deps.jobs.register(BOOKING_INVITE_JOB, {
    async run(job) {
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a job payload is untyped JSON: its id as written
      const installJobId = String(job.payload.install_job_id ?? '');
      return deps.db.transaction().execute(async (trx) => {
        const row = await repo.findInvitationTarget(trx, installJobId);
        if (!row || row.status !== 'BOOKING_HELD' || row.subscription_status !== 'PENDING_INSTALL') return { sent: false };
        const sent = await sendBookingInvitation(trx, deps, installJobId, {
          id: row.subscriber_id,
          email: row.email,
          firstName: row.first_name,
        });
        return { sent };
      });
    },
  });
}
