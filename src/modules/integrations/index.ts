export { createIntegrationsService, type IntegrationsService, type IntegrationsSummary } from './integrations.service.js';
