// What several partner operations' examples share: the demo provider's branding and the error cases
// more than one operation answers word for word (a case is `{ name, detail }`, see ./index.ts).

/** Nordlicht Fibre's branding, as every read that embeds the provider shows it. */
export const nordlichtBranding = () => ({
  display_name: 'Nordlicht Fibre',
  logo_url: null,
  primary_color: '#0b6e4f',
  support_phone: '+49 30 9999000',
});

export const MALFORMED_IDEMPOTENCY_KEY = [
  { name: 'malformed_idempotency_key', detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters' },
];
export const SUBSCRIPTION_NOT_FOUND = { name: 'subscription_not_found', detail: 'Subscription not found' };
export const PLAN_VERSION_NOT_FOUND = { name: 'plan_version_not_found', detail: 'Plan version not found' };
