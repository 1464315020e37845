// POST /provisioning/ship-install (the SHIPPED step of an install job), on the demo data's shapes: a
// second-line CPE shipment of Nordlicht Fibre. 401 comes from the bearer defaults (plugins/openapi-examples.ts).
import type { ExampleMap } from '../../../plugins/openapi-examples.js';
import { MALFORMED_IDEMPOTENCY_KEY } from './common.examples.js';

export const INSTALL_EXAMPLES: ExampleMap = {
  shipInstall: {
    200: {
      subscription_id: '5c902d5c-d0e7-421f-ae2e-ac21d89f58c1',
      install_job_id: '9a3e6f12-4b7c-4d8e-a1f2-3c4d5e6f7a8b',
      status: 'SHIPPED',
      kind: 'cpe_shipment',
      carrier: 'DHL',
      tracking_reference: 'JJD0001234567',
      shipped_at: '2026-11-16T10:00:00.000Z',
      mailed: true,
    },
    400: MALFORMED_IDEMPOTENCY_KEY,
    403: [
      { name: 'invalid_credentials', detail: 'Invalid credentials' },
      { name: 'forbidden', detail: 'Not permitted for this account' },
      { name: 'staff_role_not_permitted', detail: 'Only provider staff with the sp_admin or support role mark equipment shipped' },
    ],
    404: [{ name: 'subscription_not_found', detail: 'Subscription not found' }],
    409: [
      {
        name: 'install_job_is_booking_sent',
        detail:
          'Install job is BOOKING_SENT (subscription PENDING_INSTALL); equipment can be shipped only from CREATED or BOOKED while the subscription is PENDING_INSTALL',
      },
      {
        name: 'install_job_is_shipped',
        detail:
          'Install job is SHIPPED (subscription PENDING_INSTALL); equipment can be shipped only from CREATED or BOOKED while the subscription is PENDING_INSTALL',
      },
    ],
    422: [
      { name: 'subscription_id_invalid_uuid', detail: 'subscription_id: Invalid UUID' },
      { name: 'carrier_too_small', detail: 'carrier: Too small: expected string to have >=1 characters' },
    ],
  },
};
