import type { ExampleMap } from '../../../plugins/openapi-examples.js';
import { MALFORMED_IDEMPOTENCY_KEY, nordlichtBranding } from './common.examples.js';

const SESSION_NOT_FOUND = [{ name: 'checkout_session_not_found', detail: 'Checkout session not found' }];
const SESSION_EXPIRED = { name: 'session_expired', detail: { code: 'session_expired', detail: 'Session expired' } };
const SESSION_CANCELLED = { name: 'session_cancelled', detail: { code: 'session_cancelled', detail: 'Session cancelled' } };
const SESSION_ID_INVALID = [{ name: 'session_id_invalid_uuid', detail: 'session_id: Invalid UUID' }];
const LOCATION_NOT_FOUND = { name: 'location_not_found', detail: 'Location not found' };
const LOCATION_MISSING = { name: 'location_missing', detail: 'Provide location_hash or location_identifier' };

/** A session as GET (and PATCH) answer it: Fibre Fast 500 at Invalidenstraße 12a, Berlin, from Nordlicht Fibre. */
const checkoutSession = (o: {
  session_id: string;
  status: string;
  provider_id: string;
  plan_version_id: string;
  building_id: string;
  unit: { unit_id: string | null; label: string | null };
  partner_reference: string | null;
  expires_at: string | null;
  redirected_at: string | null;
}) => ({
  session_id: o.session_id,
  status: o.status,
  provider_id: o.provider_id,
  plan_version_id: o.plan_version_id,
  building_id: o.building_id,
  unit_id: o.unit.unit_id,
  partner_reference: o.partner_reference,
  subscription_id: null,
  subscription_status: null,
  created_at: '2026-11-16T10:00:00.000Z',
  expires_at: o.expires_at,
  redirected_at: o.redirected_at,
  completed_at: null,
  plan: {
    plan_version_id: o.plan_version_id,
    name: 'Fibre Fast 500',
    monthly_price: '44.99',
    currency: 'EUR',
    store_product_id: 'nl-fast-500',
    bandwidth: { download_mbps: 500, upload_mbps: 100 },
  },
  units: {
    ...o.unit,
    floor: null,
    buildings: {
      building_id: o.building_id,
      street: 'Invalidenstraße',
      house_number: '12a',
      city: 'Berlin',
      postal_code: '10115',
      province: null,
      country: 'DE',
    },
  },
  provider: { id: o.provider_id, name: 'Nordlicht Fibre', branding: nordlichtBranding() },
});

/** The address of the location examples' building. */
const INVALIDENSTRASSE_12A = {
  street: 'Invalidenstraße',
  house_number: '12a',
  postal_code: '10115',
  city: 'Berlin',
  province: 'Berlin',
  country: 'DE',
};

/** An autocomplete suggestion of a Mainzer Straße number not in coverage. */
const mainzerStrasse = (houseNumber: string) => ({
  display: `Mainzer Straße ${houseNumber}, 55116 Mainz`,
  building_id: null,
  street: 'Mainzer Straße',
  house_number: houseNumber,
  postal_code: '55116',
  city: 'Mainz',
  province: null,
  country: 'DE',
  orderable: false,
});

// The checkout operations' examples, by operationId (see ./index.ts): a whole body per 2xx, each error case's `detail`.
export const CHECKOUT_EXAMPLES: ExampleMap = {
  // POST /external-checkout/sessions
  createCheckoutSession: {
    201: {
      session_id: 'bf68acaa-291f-4b4b-8d78-6c4928790d28',
      checkout_url: 'https://shop.nordlicht-fibre.example/checkout?lang=de&session_id=bf68acaa-291f-4b4b-8d78-6c4928790d28',
      status: 'pending',
      expires_at: '2026-11-16T12:00:00.000Z',
    },
    422: [
      { name: 'plan_version_id_not_an', detail: 'plan_version_id: not an active plan version of this provider' },
      { name: 'unit_id_unknown_unit_for', detail: 'unit_id: unknown unit for this provider' },
      { name: 'location_hash_unknown_location_for', detail: 'location_hash: unknown location for this provider' },
    ],
    503: [{ name: 'the_provider_has_no_external', detail: 'The provider has no external checkout URL configured' }],
  },
  // GET /external-checkout/sessions/{session_id}
  getCheckoutSession: {
    200: checkoutSession({
      session_id: '6729ed7d-4486-44f0-9683-5364342017b4',
      status: 'redirected',
      provider_id: '5fd5f029-f700-4b92-8637-8c3be660eaf1',
      plan_version_id: 'e55015fd-c215-49bb-94c4-43f37bb23fe1',
      building_id: '072e0163-1f30-40d4-9794-68500218074d',
      unit: { unit_id: '978c4b31-fc7d-44c4-ba61-b2918c088f3d', label: '4B' },
      partner_reference: null,
      expires_at: null,
      redirected_at: '2026-11-16T10:01:00.000Z',
    }),
    404: SESSION_NOT_FOUND,
    410: [SESSION_EXPIRED, SESSION_CANCELLED],
    422: SESSION_ID_INVALID,
  },
  // PATCH /external-checkout/sessions/{session_id}
  patchCheckoutSession: {
    200: checkoutSession({
      session_id: '161d1637-6e93-4873-bba7-d46df4b19e70',
      status: 'pending',
      provider_id: '246f75f1-9018-4d3b-b3f2-ef597da87095',
      plan_version_id: '10f91266-3cdb-49ee-8c5d-9cae621e7411',
      building_id: 'e35d4414-028d-4a8d-8b43-8a924acbbdff',
      unit: { unit_id: null, label: null },
      partner_reference: 'SHOP-ORDER-10442',
      expires_at: '2026-11-16T12:00:00.000Z',
      redirected_at: null,
    }),
    404: SESSION_NOT_FOUND,
    409: [
      {
        name: 'session_already_completed_only_pending',
        detail: 'Session already completed; only pending or redirected sessions can be changed',
      },
    ],
    410: [SESSION_EXPIRED, SESSION_CANCELLED],
    422: [
      {
        name: 'unit_id_not_patchable_only',
        detail: 'unit_id: not patchable; only plan_version_id and partner_reference can be changed',
      },
      {
        name: 'delivery_mode_not_patchable_only',
        detail: 'delivery_mode: not patchable; only plan_version_id and partner_reference can be changed',
      },
      {
        name: 'service_provider_document_id_not',
        detail: 'service_provider_document_id: not patchable; only plan_version_id and partner_reference can be changed',
      },
    ],
  },
  // POST /external-checkout/sessions/{session_id}/cancel
  cancelCheckoutSession: {
    200: { session_id: 'b7c68094-e80b-4450-8a8f-f79accb57c0b', status: 'cancelled', subscription_status: null },
    404: SESSION_NOT_FOUND,
    409: [
      {
        name: 'session_not_opened_by_the',
        detail:
          'Session not opened by the checkout page yet; only a redirected session can be cancelled (a pending one expires 2 hours after creation)',
      },
      { name: 'session_already_completed_it_can', detail: 'Session already completed; it can no longer be cancelled' },
    ],
    410: [SESSION_CANCELLED, SESSION_EXPIRED],
    422: SESSION_ID_INVALID,
  },
  // GET /external-checkout/sessions/{session_id}/status
  getCheckoutSessionStatus: {
    200: { session_id: 'd039dfe7-503f-4983-a2ff-7efe7bf84534', status: 'completed', subscription_status: 'ACTIVE' },
    404: SESSION_NOT_FOUND,
    410: [SESSION_EXPIRED, SESSION_CANCELLED],
    422: SESSION_ID_INVALID,
  },
  // POST /external-checkout/complete
  completeExternalCheckout: {
    200: {
      subscription_id: 'a677f518-4c63-4192-b361-88ff73992df1',
      subscriber_id: '84319840-6407-4039-b580-0edd19f4d7d5',
      message: 'Subscription already exists (idempotent replay)',
    },
    201: {
      route: 'provision',
      job_id: '0c9949cb-7fc3-4a0a-9c40-e01c24560af3',
      subscription_id: '721ba2a5-88c9-45c1-ba91-241210e8e1ff',
      subscriber_id: 'bb6a6ef1-a9db-4968-a37b-2eaf25481b99',
      message: 'Subscription created and active; the port is being provisioned (poll the job or wait for provisioning.completed)',
    },
    400: MALFORMED_IDEMPOTENCY_KEY,
    404: SESSION_NOT_FOUND,
    409: [{ name: 'unit_already_has_a_pending', detail: 'Unit already has a pending or active subscription' }],
    410: [SESSION_CANCELLED, SESSION_EXPIRED],
    422: [
      {
        name: 'delivery_mode_required_with_unit',
        detail:
          'delivery_mode: required with unit_id; the default, direct, needs location_hash. Send delivery_mode home_drop with unit_id for the install path',
      },
      {
        name: 'neither_a_provisionable_port_location',
        detail: 'Neither a provisionable port (location_hash) nor a unit_id is known: send unit_id (home_drop) for the install path',
      },
      {
        name: 'delivery_mode_direct_needs_a',
        detail:
          'delivery_mode direct needs a first-line building, this building is third_line: order it with delivery_mode home_drop and unit_id',
      },
    ],
  },
  // POST /external-checkout/anonymous-complete
  completeExternalCheckoutAnonymous: {
    200: {
      subscription_id: '25123a3f-52fa-405c-8ca0-a76727969e16',
      subscriber_id: '2bfccf12-e6cf-4cf5-822b-47c506df8b77',
      message: 'Subscription already exists (idempotent replay)',
      idempotent_replay: true,
    },
    201: {
      route: 'install',
      job_id: null,
      subscription_id: '25123a3f-52fa-405c-8ca0-a76727969e16',
      subscriber_id: '2bfccf12-e6cf-4cf5-822b-47c506df8b77',
      message: 'Subscription created and pending installation',
      idempotent_replay: false,
    },
    400: MALFORMED_IDEMPOTENCY_KEY,
    404: SESSION_NOT_FOUND,
    409: [
      { name: 'unit_taken', detail: 'Unit already has a pending or active subscription' },
      { name: 'idempotency_in_progress', detail: 'A request with this Idempotency-Key is still in progress; retry shortly' },
    ],
    410: [SESSION_EXPIRED, SESSION_CANCELLED],
    422: [
      { name: 'plan_version_id_required', detail: 'plan_version_id: required when session_id is not sent' },
      { name: 'not_in_coverage', detail: 'The building is not in coverage' },
    ],
  },
  // POST /location/lookup
  locationLookup: {
    200: {
      ...INVALIDENSTRASSE_12A,
      unit_label: '1G',
      location_identifier: 'DE-10115-INVALIDENSTRASSE-12A-1G',
      building_id: 'd41f7b2e-6c8a-4e1d-b3f5-7a9c0e2d4f61',
      unit_id: '8c1e3a5b-7d9f-4b2c-a4e6-0f2b4d6f8a1c',
    },
    404: [LOCATION_NOT_FOUND],
    422: [LOCATION_MISSING],
  },
  // POST /location/details
  locationDetails: {
    200: {
      location_id: '1a3c5e7f-9b2d-4f6a-8c0e-2b4d6f8a0c1e',
      provider_id: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
      location_hash: 'loc_6JkQ2mW9xR4tZ8vB',
      location_identifier: 'DE-10115-INVALIDENSTRASSE-12A-1G',
      switch_id: 'sw-ber-mitte-03',
      switch_port: 'ge-0/0/17',
      vlan_id: 1017,
      created_at: '2025-09-30T08:00:00.000Z',
      building: {
        building_id: 'd41f7b2e-6c8a-4e1d-b3f5-7a9c0e2d4f61',
        name: 'Invalidenstraße 12a',
        ...INVALIDENSTRASSE_12A,
        region: 'DE-BE',
        line_type: 'first_line',
        in_coverage: true,
      },
      unit: { unit_id: '8c1e3a5b-7d9f-4b2c-a4e6-0f2b4d6f8a1c', label: '1G', floor: 1 },
      occupied: true,
      subscription_id: '9e2d4a7c-1b3f-4c5d-8e6f-a0b1c2d3e4f5',
      subscription_status: 'ACTIVE',
    },
    404: [LOCATION_NOT_FOUND],
    422: [LOCATION_MISSING],
  },
  // GET /serviceability/autocomplete
  serviceabilityAutocomplete: {
    200: {
      suggestions: ['1', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19', '2', '20', '21', '22'].map(mainzerStrasse),
    },
    422: [
      { name: 'q_too_small_expected_string', detail: 'q: Too small: expected string to have >=3 characters' },
      { name: 'limit_too_big_expected_number', detail: 'limit: Too big: expected number to be <=15' },
    ],
  },
  // POST /serviceability/check
  serviceabilityCheck: {
    200: {
      serviceable: true,
      match: {
        display: '12A Main Street, Toronto, ON M5V 2T6',
        building_id: '93a489e1-640b-407f-931f-aa7e40cc140a',
        street: 'Main Street',
        house_number: '12A',
        postal_code: 'M5V 2T6',
        city: 'Toronto',
        province: 'ON',
        country: 'CA',
        orderable: true,
      },
      plans: [
        {
          plan_version_id: '43de614b-bd56-4f51-bdd7-4601a43480b1',
          name: 'Fibre Fast 500',
          monthly_price: '44.99',
          currency: 'EUR',
          download_mbps: 500,
          upload_mbps: 100,
          store_product_id: 'nl-fast-500',
        },
      ],
      building_id: '93a489e1-640b-407f-931f-aa7e40cc140a',
    },
    422: [
      { name: 'provide_address_or_street', detail: 'Provide address or street' },
      {
        name: 'address_too_small_expected_string',
        detail: 'address: Too small: expected string to have >=1 characters',
      },
    ],
  },
  // GET /serviceability/units
  serviceabilityUnits: {
    200: {
      building_id: '9c97c417-7771-429e-8dbe-57acda244fd6',
      units: [
        { unit_id: '7f1cb196-7703-4c52-a9ba-33cc6fb89fc8', label: '1A', floor: null, available: false },
        { unit_id: 'dc1ed21c-664d-48d3-aaff-7ab786ad6483', label: '1B', floor: null, available: false },
        { unit_id: '1843513d-376f-4a04-8269-7a6985d40fb9', label: '2A', floor: null, available: true },
        { unit_id: 'db6f91fb-5cec-4ea0-b6fc-6c052e27ee56', label: '2B', floor: null, available: false },
        { unit_id: 'ffd0a440-3ce9-4ac0-a2e7-62f894f98edb', label: '3A', floor: null, available: false },
        { unit_id: '91a4bf94-55d0-4dd3-990f-b2f579a4ab4f', label: '3B', floor: null, available: true },
      ],
    },
    404: [{ name: 'building_not_found_or_not', detail: 'Building not found or not in coverage' }],
    422: [{ name: 'building_id_invalid_uuid', detail: 'building_id: Invalid UUID' }],
  },
  // POST /external-checkout/subscription-status
  changeSubscriptionStatus: {
    200: {
      subscription_id: 'e1d4cd4a-e9de-4382-8f91-d59683a142a4',
      status: 'SUSPENDED',
      port_changed: false,
      port_error: 'Switch controller unreachable; the port was not set to the captive portal',
      message: 'Subscription suspended; the port could not be switched to the captive portal (operator follow-up)',
    },
    404: [{ name: 'subscription_not_found', detail: 'Subscription not found' }],
    409: [
      {
        name: 'cannot_suspend_a_subscription_in',
        detail: 'Cannot suspend a subscription in status SUSPENDED; only ACTIVE subscriptions can be suspended',
      },
      {
        name: 'cannot_suspend_a_subscription_in_2',
        detail: 'Cannot suspend a subscription in status PENDING; only ACTIVE subscriptions can be suspended',
      },
      {
        name: 'cannot_suspend_a_subscription_in_3',
        detail: 'Cannot suspend a subscription in status PENDING_INSTALL; only ACTIVE subscriptions can be suspended',
      },
    ],
    422: [
      {
        name: 'action_invalid_option_expected_one',
        detail: 'action: Invalid option: expected one of "suspend"|"restore"',
      },
    ],
  },
};
