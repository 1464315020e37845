// The payment page (plain HTML, no script): the invoice, a card form, and the outcome.
import { escapeHtml } from '../../mail/layout.js';
import type { PayInvoice } from './pay-page.service.js';

export interface PayPageView {
  title: string;
  message?: string;
  invoice?: PayInvoice;
  form: boolean;
  error?: boolean;
  sandbox: boolean;
}

export function renderPayPage(token: string, v: PayPageView): string {
  const facts = v.invoice
    ? `<table><tr><th scope="row">Invoice</th><td>${escapeHtml(v.invoice.invoiceNumber)}</td></tr>` +
      `<tr><th scope="row">Amount</th><td><strong>${escapeHtml(v.invoice.amount)} ${escapeHtml(v.invoice.currency)}</strong></td></tr>` +
      `<tr><th scope="row">Due date</th><td>${escapeHtml(v.invoice.dueDate)}</td></tr></table>`
    : '';
  const message = v.message
    ? `<p role="${v.error ? 'alert' : 'status'}" class="${v.error ? 'error' : 'ok'}">${escapeHtml(v.message)}</p>`
    : '';
  const hint = v.sandbox ? '<p class="hint">Sandbox: use the test card 4242 4242 4242 4242 (4000 0000 0000 0002 is declined).</p>' : '';
  const form = v.form
    ? `<form method="post" action="/pay/${encodeURIComponent(token)}">` +
      `<label for="card_number">Card number</label>` +
      `<input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required pattern="[0-9 -]{12,23}">` +
      `<label class="check"><input type="checkbox" name="save_card" value="on"> Save this card for future invoices</label>` +
      `<button type="submit">Pay ${v.invoice ? `${escapeHtml(v.invoice.amount)} ${escapeHtml(v.invoice.currency)}` : ''}</button>` +
      `</form>${hint}`
    : '';
  const brand = v.invoice ? escapeHtml(v.invoice.providerName) : 'Payment';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(v.title)} – ${brand}</title>
<style>body{font-family:Arial,Helvetica,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1f2937;line-height:1.5}
table{border-collapse:collapse;margin:1rem 0}th{text-align:left;font-weight:normal;color:#4b5563;padding:.25rem 1rem .25rem 0}
label{display:block;margin-top:1rem}input[name=card_number]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
.check{display:flex;gap:.5rem;align-items:center}button{margin-top:1rem;padding:.75rem 1.25rem;background:#0b5cad;color:#fff;border:0;border-radius:4px;font-size:1rem}
.error{color:#b91c1c}.ok{color:#166534}.hint{color:#4b5563;font-size:.9rem}</style></head>
<body><main><p><strong>${brand}</strong></p><h1>${escapeHtml(v.title)}</h1>${message}${facts}${form}</main></body></html>
`;
}
