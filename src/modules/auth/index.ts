// The auth owner: users, API keys, one-time link tokens and credential failures. Services for the
// container and the plugins; the user and link-token operations other modules run in their transactions.
export { createApiKeyService, type ApiKeyService, type ApiKeySummary } from './api-keys.service.js';
export * from './api-keys.schemas.js';
export { createAuthService, type UserPrincipal } from './auth.service.js';
export { createPasswordService } from './password.service.js';
export { deleteInvitedUser, findUserByEmail, findUserById, insertStaffUser, setPassword } from './auth.repository.js';
export { createCredentialGuard, subjects } from './credential-guard.js';
export { consumeLinkToken, createLinkToken, findLinkToken } from './link-tokens.js';
export { invalidatePaymentLinks, invalidateUserLinks, releaseLinkToken } from './link-tokens.repository.js';
export type { ApiKeyPrincipal, Feature, Role, WebhookSecretPrincipal } from './auth.service.js';
