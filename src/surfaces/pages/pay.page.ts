// The payment page: the invoice, the card processor's form, and the outcome. With Stripe the form is
// Stripe's Payment Element (Stripe.js, in Stripe's frames); with the card simulator a test form that
// posts to the simulator's own server. Either way the card number goes to the processor, not here.
import { createHash } from 'node:crypto';
import type { PayCheckout, PayInvoice } from '../../modules/billing/index.js';
import { escapeHtml, factsTable, renderPage, statusLine } from './layout.js';

export interface PayPageView {
  title: string;
  message?: string;
  invoice?: PayInvoice;
  /** The processor's card form; absent: no form (paid, invalid, no processor). */
  checkout?: PayCheckout;
  error?: boolean;
  sandbox: boolean;
}

const STRIPE_JS = 'https://js.stripe.com/v3/';

// Static, so the Content-Security-Policy names it by hash; its data comes from the JSON block.
const STRIPE_SCRIPT =
  "(function(){var c=JSON.parse(document.getElementById('pay-config').textContent);" +
  'var stripe=Stripe(c.publishableKey,{stripeAccount:c.account});' +
  'var elements=stripe.elements({clientSecret:c.clientSecret});' +
  "elements.create('payment').mount('#payment-element');" +
  "document.getElementById('pay-form').addEventListener('submit',function(e){e.preventDefault();" +
  'stripe.confirmPayment({elements:elements,confirmParams:{return_url:c.returnUrl}}).then(function(r){' +
  "if(r.error){document.getElementById('pay-error').textContent=r.error.message;}});});})();";
const STRIPE_SCRIPT_HASH = `'sha256-${createHash('sha256').update(STRIPE_SCRIPT).digest('base64')}'`;

/** The Content-Security-Policy sources the page needs for its processor (pageHelmet options). */
export function payPageSources(o: { processor: 'stripe' | 'simulator' | null; simulatorUrl?: string }) {
  if (o.processor === 'stripe') {
    // Stripe's documented CSP for Stripe.js and the Payment Element.
    return {
      scripts: ['https://js.stripe.com', STRIPE_SCRIPT_HASH],
      frames: ['https://js.stripe.com', 'https://hooks.stripe.com'],
      connect: ['https://api.stripe.com'],
      images: ['https://*.stripe.com'],
    };
  }
  if (o.processor === 'simulator' && o.simulatorUrl) return { forms: [new URL(o.simulatorUrl).origin] };
  return {};
}

/** JSON inside a <script type="application/json"> block: no "<" may close it. */
const jsonBlock = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

function cardForm(token: string, v: PayPageView, c: PayCheckout): string {
  const payLabel = `Pay ${v.invoice ? `${escapeHtml(v.invoice.amount)} ${escapeHtml(v.invoice.currency)}` : ''}`;
  if (c.kind === 'stripe') {
    const config = { publishableKey: c.publishableKey, account: c.account, clientSecret: c.clientSecret, returnUrl: c.returnUrl };
    return (
      `<form id="pay-form"><div id="payment-element"></div><button type="submit">${payLabel}</button>` +
      `<p id="pay-error" role="alert" class="error"></p></form>` +
      `<p class="hint">Your card details go straight to Stripe, our card processor; this site never sees them.</p>` +
      `<script type="application/json" id="pay-config">${jsonBlock(config)}</script>` +
      `<script src="${STRIPE_JS}"></script><script>${STRIPE_SCRIPT}</script>`
    );
  }
  const cardInput =
    `<label for="card_number">Card number</label>` +
    `<input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required pattern="[0-9 -]{12,23}">`;
  const testCards = '<p class="hint">Test cards: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined.</p>';
  if (c.kind === 'simulator') {
    const origin = new URL(c.confirmUrl).origin;
    return (
      `<form method="post" action="${escapeHtml(c.confirmUrl)}">` +
      `<input type="hidden" name="client_secret" value="${escapeHtml(c.clientSecret)}">` +
      `<input type="hidden" name="return_url" value="${escapeHtml(c.returnUrl)}">${cardInput}` +
      `<button type="submit">${payLabel}</button></form>` +
      `<p class="hint" id="simulator-notice">Test mode: this form sends the card number to the card simulator's own server ` +
      `(${escapeHtml(origin)}), never to this site, as Stripe's card form sends it to Stripe.</p>${testCards}`
    );
  }
  return (
    `<form method="post" action="/pay/${encodeURIComponent(token)}">${cardInput}` +
    `<label class="check"><input type="checkbox" name="save_card" value="on"> Save this card for future invoices</label>` +
    `<button type="submit">${payLabel}</button></form>` +
    `<p class="hint" id="simulator-notice">Sandbox: the card simulator has no server of its own here (CARD_SIMULATOR_URL is unset and no simulator server runs), ` +
    `so this test form posts to this site. A real card processor never takes card numbers here.</p>${testCards}`
  );
}

export function renderPayPage(token: string, v: PayPageView): string {
  const facts = v.invoice
    ? factsTable([
        ['Invoice', escapeHtml(v.invoice.invoiceNumber)],
        ['Amount', `<strong>${escapeHtml(v.invoice.amount)} ${escapeHtml(v.invoice.currency)}</strong>`],
        ['Due date', escapeHtml(v.invoice.dueDate)],
      ])
    : '';
  const message = v.message ? statusLine(v.message, v.error) : '';
  const form = v.checkout ? cardForm(token, v, v.checkout) : '';
  const brand = v.invoice ? v.invoice.providerName : 'Payment';
  return renderPage({
    title: `${v.title} – ${brand}`,
    brand,
    style:
      'input[name=card_number]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}.check{display:flex;gap:.5rem;align-items:center}',
    main: `<h1>${escapeHtml(v.title)}</h1>${message}${facts}${form}`,
  });
}
