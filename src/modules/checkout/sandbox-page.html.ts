// The sandbox's fake payment page (plain HTML, no script): what a provider's hosted checkout page
// would show after reading the session, and a Pay button that completes it.
import { escapeHtml } from '../../mail/layout.js';
import type { SessionView } from './checkout.service.js';

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
  const brand = s ? escapeHtml(s.provider.branding.display_name ?? s.provider.name) : 'Sandbox checkout';
  const color =
    s?.provider.branding.primary_color && /^#[0-9a-fA-F]{3,8}$/.test(s.provider.branding.primary_color)
      ? s.provider.branding.primary_color
      : '#0b5cad';
  const facts = s
    ? `<table><tr><th scope="row">Plan</th><td>${escapeHtml(s.plan.name)}</td></tr>` +
      `<tr><th scope="row">Price</th><td><strong>${escapeHtml(s.plan.monthly_price)} ${escapeHtml(s.plan.currency)}</strong> per month</td></tr>` +
      `<tr><th scope="row">Speed</th><td>${s.plan.bandwidth.download_mbps} / ${s.plan.bandwidth.upload_mbps} Mbit/s</td></tr>` +
      `<tr><th scope="row">Address</th><td>${escapeHtml(addressOf(s))}</td></tr>` +
      `<tr><th scope="row">Session</th><td><code>${escapeHtml(s.session_id)}</code> (${escapeHtml(s.status)})</td></tr></table>`
    : '';
  const message = v.message
    ? `<p role="${v.error ? 'alert' : 'status'}" class="${v.error ? 'error' : 'ok'}">${escapeHtml(v.message)}</p>`
    : '';
  const result = v.result
    ? (v.result.route ? `<table><tr><th scope="row">Route</th><td>${escapeHtml(v.result.route)}</td></tr></table>` : '') +
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
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(v.title)} – ${brand}</title>
<style>body{font-family:Arial,Helvetica,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1f2937;line-height:1.5}
table{border-collapse:collapse;margin:1rem 0}th{text-align:left;font-weight:normal;color:#4b5563;padding:.25rem 1rem .25rem 0;vertical-align:top}
label{display:block;margin-top:.75rem}input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1rem;padding:.75rem 1.25rem;background:${color};color:#fff;border:0;border-radius:4px;font-size:1rem}
button.secondary{background:#fff;color:#374151;border:1px solid #9ca3af}.error{color:#b91c1c}.ok{color:#166534}.hint{color:#4b5563;font-size:.9rem}.badge{display:inline-block;background:#fef3c7;color:#92400e;padding:.1rem .5rem;border-radius:4px;font-size:.8rem}</style></head>
<body><main><p><strong>${brand}</strong> <span class="badge">SANDBOX</span></p><h1>${escapeHtml(v.title)}</h1>${message}${facts}${result}${form}${cancel}</main></body></html>
`;
}
