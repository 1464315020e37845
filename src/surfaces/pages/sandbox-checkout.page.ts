// The sandbox's fake payment page (plain HTML, no script): what a provider's hosted checkout page
// would show after reading the session, and a Pay button that completes it.
import type { CheckoutSessionView as SessionView } from '../../modules/checkout/index.js';
import { escapeHtml, factsTable, renderPage, statusLine } from './layout.js';

export interface SandboxPageView {
  title: string;
  message?: string;
  error?: boolean;
  session?: SessionView;
  /** Where the Pay form posts; null hides the form. */
  payAction: string | null;
  /** Where the Cancel form posts (shown with the Pay form); absent hides it. */
  cancelAction?: string | null;
  values?: { email?: string; first_name?: string; last_name?: string; phone?: string };
  /** No subscriber or subscription id: anyone holding the session link sees this page. */
  result?: { route?: string; statusUrl: string };
}

function addressOf(s: SessionView): string {
  const b = s.units?.buildings;
  if (!b) return 'Address not recorded';
  const line1 = [b.street, b.house_number].filter(Boolean).join(' ');
  const line2 = [b.postal_code, b.city].filter(Boolean).join(' ');
  const parts = [line1, line2, b.province, b.country].filter((x) => x && x.length > 0);
  const unit = s.units?.label ? `, unit ${s.units.label}` : '';
  return parts.length ? `${parts.join(', ')}${unit}` : `Address not recorded${unit}`;
}

const input = (name: string, label: string, type: string, value: string | undefined, required: boolean, autocomplete: string) =>
  `<label for="${name}">${label}${required ? '' : ' (optional)'}</label>` +
  `<input id="${name}" name="${name}" type="${type}" autocomplete="${autocomplete}"${required ? ' required' : ''} value="${escapeHtml(value ?? '')}">`;

export function renderSandboxCheckout(v: SandboxPageView): string {
  const s = v.session;
  const brand = s ? (s.provider.branding.display_name ?? s.provider.name) : 'Sandbox checkout';
  const color =
    s?.provider.branding.primary_color && /^#[0-9a-fA-F]{3,8}$/.test(s.provider.branding.primary_color)
      ? s.provider.branding.primary_color
      : '#0b5cad';
  const facts = s
    ? factsTable([
        ['Plan', escapeHtml(s.plan.name)],
        ['Price', `<strong>${escapeHtml(s.plan.monthly_price)} ${escapeHtml(s.plan.currency)}</strong> per month`],
        ['Speed', `${s.plan.bandwidth.download_mbps} / ${s.plan.bandwidth.upload_mbps} Mbit/s`],
        ['Address', escapeHtml(addressOf(s))],
        ['Session', `<code>${escapeHtml(s.session_id)}</code> (${escapeHtml(s.status)})`],
      ])
    : '';
  const message = v.message ? statusLine(v.message, v.error) : '';
  const result = v.result
    ? (v.result.route ? factsTable([['Route', escapeHtml(v.result.route)]]) : '') +
      `<p><a href="${escapeHtml(v.result.statusUrl)}">Session status</a></p>`
    : '';
  const form =
    v.payAction && s
      ? `<form method="post" action="${escapeHtml(v.payAction)}">` +
        `<input type="hidden" name="session_id" value="${escapeHtml(s.session_id)}">` +
        input('email', 'Email', 'email', v.values?.email, true, 'email') +
        input('first_name', 'First name', 'text', v.values?.first_name, true, 'given-name') +
        input('last_name', 'Last name', 'text', v.values?.last_name, true, 'family-name') +
        input('phone', 'Phone', 'tel', v.values?.phone, false, 'tel') +
        `<button type="submit">Pay ${escapeHtml(s.plan.monthly_price)} ${escapeHtml(s.plan.currency)}</button></form>` +
        '<p class="hint">Sandbox: no money moves. Pay completes the session on the provider\'s behalf, as its checkout page would.</p>'
      : '';
  const cancel =
    v.payAction && v.cancelAction && s
      ? `<form method="post" action="${escapeHtml(v.cancelAction)}"><input type="hidden" name="session_id" value="${escapeHtml(s.session_id)}">` +
        '<button type="submit" class="secondary">Cancel checkout</button></form>'
      : '';
  return renderPage({
    title: `${v.title} – ${brand}`,
    brand,
    badge: 'SANDBOX',
    width: 34,
    style:
      'label{margin-top:.75rem}input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}' +
      `button{background:${color}}button.secondary{background:#fff;color:#374151;border:1px solid #9ca3af}`,
    main: `<h1>${escapeHtml(v.title)}</h1>${message}${facts}${result}${form}${cancel}`,
  });
}
