import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { CompletionService } from './completion.service.js';
import type { SubscriberInput } from '../provisioning/index.js';
import { findProvider } from '../providers/index.js';
import { findSubscriberByEmail } from '../subscribers/index.js';
import { findUserByEmail } from '../auth/index.js';
import { toSessionView, type CheckoutService } from './checkout.service.js';
import { gateSessionAt } from './checkout.sessions.js';

export const SANDBOX_CHECKOUT_PATH = '/sandbox/checkout';

/**
 * Only providers whose external_checkout_url IS the sandbox page can be completed from it: the page
 * acts for the provider (a browser has no X-Webhook-Secret), so it must never reach a provider
 * that runs its own checkout. Compared by path, so the host or port the demo was seeded with may differ.
 */
function usesSandboxCheckout(externalCheckoutUrl: string | null): boolean {
  if (!externalCheckoutUrl) return false;
  try {
    return new URL(externalCheckoutUrl).pathname.replace(/\/+$/, '') === SANDBOX_CHECKOUT_PATH;
  } catch {
    return false;
  }
}

export interface SandboxCheckoutDeps {
  db: Db;
  clock: Clock;
  checkout: CheckoutService;
  completion: CompletionService;
}

export function createSandboxCheckoutService(deps: SandboxCheckoutDeps) {
  const { checkout, completion } = deps;

  /** The provider of a session the sandbox page may act on; 404 otherwise (410 first for expired/cancelled). */
  async function sandboxProvider(sessionId: string) {
    const s = await gateSessionAt(deps.db, sessionId, deps.clock.now());
    if (!s) throw notFound('Checkout session not found');
    const provider = await findProvider(deps.db, s.provider_id);
    if (!provider || !usesSandboxCheckout(provider.external_checkout_url)) throw notFound('Checkout session not found');
    return provider.id;
  }

  /** What the provider's page does when it renders: read the session (pending → redirected). */
  async function view(sessionId: string) {
    const providerId = await sandboxProvider(sessionId);
    return checkout.read(sessionId, providerId);
  }

  /**
   * The Pay button: session-based completion on the provider's behalf (the provisioning module's complete).
   * Only for a new account: the page takes no login and no payment, so an email that already belongs
   * to a customer of the provider, or to any login (logins are shared across providers and completion
   * links the new subscriber to one by email), is refused (409) rather than given a subscription it
   * never paid for.
   * A replay of a session already completed still answers its outcome.
   */
  async function pay(sessionId: string, subscriber: SubscriberInput, requestId: string) {
    const providerId = await sandboxProvider(sessionId);
    const current = await checkout.loadView(sessionId);
    const email = subscriber.email.trim();
    if (
      current.status !== 'completed' &&
      ((await findSubscriberByEmail(deps.db, providerId, email)) || (await findUserByEmail(deps.db, email)))
    ) {
      throw new AppError(409, 'conflict', 'The sandbox checkout only opens new accounts: use an email address that has no account yet.');
    }
    const outcome = await completion.complete(
      { providerId, actor: { actorType: 'system', actor: 'sandbox-checkout' }, requestId },
      { session_id: sessionId, subscriber },
    );
    const session = toSessionView(await checkout.loadView(sessionId));
    return outcome.created
      ? {
          replay: false,
          subscription_id: outcome.result.subscription_id,
          subscriber_id: outcome.result.subscriber_id,
          route: outcome.result.route,
          message: outcome.result.message,
          session,
        }
      : {
          replay: true,
          subscription_id: outcome.replay.subscription_id,
          subscriber_id: outcome.replay.subscriber_id,
          route: undefined,
          message: outcome.replay.message,
          session,
        };
  }

  /** The Cancel button: the buyer abandons the checkout (redirected → cancelled). */
  async function cancel(sessionId: string) {
    const providerId = await sandboxProvider(sessionId);
    return checkout.cancel(sessionId, providerId);
  }

  return { view, pay, cancel };
}

/** The readable text of an error for the HTML page (410 carries a nested detail). */
export function pageErrorOf(err: AppError): string {
  const d = err.extra.detail as { detail?: string } | string | undefined;
  if (d && typeof d === 'object' && typeof d.detail === 'string') return d.detail;
  return typeof d === 'string' ? d : err.message;
}
