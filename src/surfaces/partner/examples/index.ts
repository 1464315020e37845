import type { ExampleMap } from '../../../plugins/openapi-examples.js';
import { CHECKOUT_EXAMPLES } from './checkout.examples.js';
import { PROVISIONING_EXAMPLES } from './provisioning.examples.js';
import { SUBSCRIBER_EXAMPLES } from './subscriber.examples.js';
import { ROLLBACK_EXAMPLES } from './rollback.examples.js';
import { ADMIN_EXAMPLES } from './admin.examples.js';
import { INSTALL_EXAMPLES } from './install.examples.js';
import { ADMIN_INTEGRATION_EXAMPLES } from './admin-integrations.examples.js';

// One example per status of each partner operation, by operationId, taken from real answers on the
// demo data's shapes (Nordlicht Fibre, its plans and buildings). 401/403 of the credential checks and
// 429 come from the defaults in plugins/openapi-examples.ts.
export const PARTNER_EXAMPLES: ExampleMap = {
  ...CHECKOUT_EXAMPLES,
  ...PROVISIONING_EXAMPLES,
  ...INSTALL_EXAMPLES,
  ...SUBSCRIBER_EXAMPLES,
  ...ROLLBACK_EXAMPLES,
  ...ADMIN_EXAMPLES,
  ...ADMIN_INTEGRATION_EXAMPLES,
};
