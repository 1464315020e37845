// The providers owner: provider rows and their settings. The admin service, and the reads and
// setting writes other modules run in their transactions.
export { createProviderAdminService, type ProviderAdminService } from './provider-admin.service.js';
export * from './provider-admin.schemas.js';
export {
  findCardProcessorAccount,
  findIntegrationSettings,
  findProvider,
  getProvider,
  setCardProcessorAccount,
  setSmsConfigured,
} from './providers.repository.js';
