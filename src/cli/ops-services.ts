import type { ApiKeyService } from '../modules/auth/index.js';
import type { IntegrationsService } from '../modules/integrations/index.js';
import type { InventoryImportService } from '../modules/inventory/index.js';
import type { ShippingService } from '../modules/install/index.js';
import type { PlansService } from '../modules/plans/index.js';
import type { ProviderAdminService } from '../modules/providers/index.js';
import type { createStaffService } from '../modules/staff/index.js';

/** What the commands call: the operator services, as src/container.ts builds them. */
export interface OpsServices {
  providerAdmin: ProviderAdminService;
  apiKeys: ApiKeyService;
  plans: PlansService;
  staff: Pick<ReturnType<typeof createStaffService>, 'inviteProviderAdmin'>;
  inventory: InventoryImportService;
  integrations: Pick<
    IntegrationsService,
    'showIntegrations' | 'setCardProcessor' | 'clearCardProcessor' | 'setSmsGateway' | 'clearSmsGateway'
  >;
  shipping: Pick<ShippingService, 'ship'>;
}
