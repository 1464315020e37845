import Stripe from 'stripe';

// Stripe's events (docs/integration/card.md "Events"): the signature (Stripe-Signature, HMAC-SHA256 of
// the timestamp and the raw body under the endpoint secret, 5 minutes' tolerance) is checked by the
// SDK's own stripe.webhooks.constructEvent before anything in the event is read.

export class EventSignatureError extends Error {}

export interface CardEvent {
  id: string;
  type: string;
  /** The connected account the event happened on (Stripe Connect); null for the platform's own. */
  account: string | null;
  object: Record<string, unknown>;
}

export function createStripeEventVerifier(endpointSecret: string) {
  // constructEvent needs no API key; the SDK instance only carries the verification code.
  const stripe = new Stripe('sk_test_verification_only', { telemetry: false });
  return (rawBody: Buffer, signature: string | undefined): CardEvent => {
    if (!signature) throw new EventSignatureError('missing Stripe-Signature header');
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(rawBody, signature, endpointSecret);
    } catch (err) {
      throw new EventSignatureError((err as Error).message);
    }
    return {
      id: event.id,
      type: event.type,
      account: event.account ?? null,
      object: event.data.object as unknown as Record<string, unknown>,
    };
  };
}

export type StripeEventVerifier = ReturnType<typeof createStripeEventVerifier>;
