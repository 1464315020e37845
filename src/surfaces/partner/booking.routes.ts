import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { BOOKING_SCRIPT_HASH, renderBookingPage } from '../pages/booking.page.js';
import { noStore, pageHelmet } from '../../plugins/page-headers.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const Detail = z.object({ detail: z.string() }).describe('Error');
const Params = z.object({ token: z.string().min(10).max(200).describe('The token of the emailed booking link') });

const Window = z.object({
  starts_at: z.string().describe('RFC 3339 UTC'),
  ends_at: z.string().describe('RFC 3339 UTC, four hours after starts_at'),
});
const SlotsResponse = z.object({
  time_zone: z
    .string()
    .describe('IANA time zone of the building (e.g. Europe/Berlin, America/Toronto): windows start at its local 08:00, 12:00 and 16:00'),
  status: z
    .string()
    .describe('The install job: BOOKING_SENT (no appointment), BOOKED, or a state in which the link no longer changes anything'),
  bookable: z.boolean().describe('Whether the link can still book, move or cancel'),
  move_in_date: z.string().meta({ format: 'date' }).nullable(),
  booking: Window.nullable().describe('The booked window, if any'),
  windows: z
    .array(Window)
    .describe(
      'Free windows (local weekdays, 08:00/12:00/16:00 local starts in time_zone, at least 24 hours ahead, not before the local move-in day, 4 weeks ahead)',
    ),
});
const BookingResponse = z.object({ status: z.string(), booking: Window.nullable() });

export const bookingRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.booking;

  app.get(
    '/booking/:token',
    {
      config: { rateLimit: limit('booking.page') },
      helmet: pageHelmet({ scripts: [BOOKING_SCRIPT_HASH], connectSelf: true }),
      onRequest: noStore,
      schema: {
        operationId: 'bookingPage',
        tags: ['booking'],
        summary: 'Installation booking page (HTML)',
        description: PARTNER_DESCRIPTIONS.bookingPage,
        params: Params,
        produces: ['text/html'],
        response: { 200: z.string().describe('text/html page'), 404: Detail, 422: Detail },
      },
    },
    async (request, reply) => {
      const { view, ctx } = await service.view(request.params.token);
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').type('text/html; charset=utf-8');
      return renderBookingPage(request.params.token, ctx, view);
    },
  );

  app.get(
    '/booking/:token/slots',
    {
      config: { rateLimit: limit('booking.page') },
      schema: {
        operationId: 'bookingSlots',
        tags: ['booking'],
        summary: 'Free installation windows and the current appointment (JSON)',
        description: PARTNER_DESCRIPTIONS.bookingSlots,
        params: Params,
        response: { 200: SlotsResponse, 404: Detail, 422: Detail },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return (await service.view(request.params.token)).view;
    },
  );

  app.post(
    '/booking/:token',
    {
      config: { rateLimit: limit('booking.page') },
      schema: {
        operationId: 'bookInstallation',
        tags: ['booking'],
        summary: 'Book a window, or move the appointment to another one',
        description: PARTNER_DESCRIPTIONS.bookInstallation,
        params: Params,
        body: z.object({ starts_at: z.iso.datetime({ offset: true }).describe('Start of the chosen window, RFC 3339') }),
        response: {
          200: BookingResponse,
          404: Detail,
          409: Detail.describe(
            'The window just filled up, the appointment is less than 24 hours away, or the installation can no longer be booked',
          ),
          422: Detail.describe('starts_at is not an offered window'),
        },
      },
    },
    async (request) => service.book(request.params.token, new Date(request.body.starts_at)),
  );

  app.delete(
    '/booking/:token',
    {
      config: { rateLimit: limit('booking.page') },
      schema: {
        operationId: 'cancelInstallationBooking',
        tags: ['booking'],
        summary: 'Cancel the appointment (the link stays valid to book again)',
        description: PARTNER_DESCRIPTIONS.cancelInstallationBooking,
        params: Params,
        response: {
          200: BookingResponse,
          404: Detail,
          409: Detail.describe('No appointment booked, or it is less than 24 hours away'),
          422: Detail,
        },
      },
    },
    async (request) => service.cancel(request.params.token),
  );
};
