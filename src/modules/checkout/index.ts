// The checkout owner and process: checkout sessions, their completion into a subscription (through
// provisioning) and the sandbox checkout page's service.
export { createCheckoutService } from './checkout.service.js';
export { createCompletionService } from './completion.service.js';
export { createSandboxCheckoutService } from './sandbox.service.js';
export { SANDBOX_CHECKOUT_PATH, pageErrorOf } from './sandbox.service.js';
export { sessionNotFoundError } from './checkout.sessions.js';
export {
  CreateSessionBody,
  CreateSessionResponse,
  GoneDetail,
  PatchSessionBody,
  SessionIdParams,
  SessionStatusResponse,
  SessionView,
} from './checkout.schemas.js';
export { sandboxCheckoutUrl } from './checkout.service.js';
export type { SessionView as CheckoutSessionView } from './checkout.service.js';
