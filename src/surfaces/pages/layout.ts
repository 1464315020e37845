// The one skeleton of the HTML pages a person opens (landing, booking, payment, sandbox checkout,
// rollback): doctype, head, the shared style, an optional header line, <main>, an optional script.
// The page headers (CSP, no referrer, frame-ancestors 'none') come from plugins/page-headers.ts; the
// style is an inline <style> block (the CSP allows inline styles, values in it are escaped or
// pattern-checked by the page), and a script is static text the route names by hash.
import { escapeHtml } from '../../mail/layout.js';

export { escapeHtml };

interface Page {
  /** The <title>, plain text. */
  title: string;
  /** Plain text shown above the content in bold (the provider's name); absent: no header line. */
  brand?: string;
  /** Plain text of a small label after the brand (e.g. SANDBOX). */
  badge?: string;
  /** Content width in rem (default 32). */
  width?: number;
  /** The page's own CSS, after the shared rules (so it may override them). */
  style?: string;
  /** Attributes of <body>, already escaped (e.g. data-base="..."). */
  bodyAttributes?: string;
  /** The content of <main>, already escaped HTML. */
  main: string;
  /** An inline script, static bytes the route's Content-Security-Policy allows by hash. */
  script?: string;
  /** Search engines may index it (the landing page); every token page says noindex. */
  indexable?: boolean;
}

const BASE_STYLE =
  'body{font-family:Arial,Helvetica,sans-serif;margin:2rem auto;padding:0 1rem;color:#1f2937;line-height:1.5}\n' +
  'table{border-collapse:collapse;margin:1rem 0}th{text-align:left;font-weight:normal;color:#4b5563;padding:.25rem 1rem .25rem 0;vertical-align:top}\n' +
  'label{display:block;margin-top:1rem}button{margin-top:1rem;padding:.75rem 1.25rem;background:#0b5cad;color:#fff;border:0;border-radius:4px;font-size:1rem}\n' +
  'a{color:#0b5cad}.error{color:#b91c1c}.ok{color:#166534}.hint{color:#4b5563;font-size:.9rem}\n' +
  '.badge{display:inline-block;background:#fef3c7;color:#92400e;padding:.1rem .5rem;border-radius:4px;font-size:.8rem}';

/** A status line: role="alert" in red for an error, role="status" in green otherwise. */
export const statusLine = (text: string, error: boolean | undefined) =>
  `<p role="${error ? 'alert' : 'status'}" class="${error ? 'error' : 'ok'}">${escapeHtml(text)}</p>`;

/** Rows of plain-text facts as a table (values already escaped HTML). */
export const factsTable = (rows: [string, string][]) =>
  `<table>${rows.map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${v}</td></tr>`).join('')}</table>`;

export function renderPage(p: Page): string {
  const header = p.brand
    ? `<p><strong>${escapeHtml(p.brand)}</strong>${p.badge ? ` <span class="badge">${escapeHtml(p.badge)}</span>` : ''}</p>`
    : '';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${p.indexable ? '' : '<meta name="robots" content="noindex">'}<title>${escapeHtml(p.title)}</title>
<style>${BASE_STYLE}
body{max-width:${p.width ?? 32}rem}${p.style ? `\n${p.style}` : ''}</style></head>
<body${p.bodyAttributes ? ` ${p.bodyAttributes}` : ''}><main>${header}${p.main}</main>${p.script ? `\n<script>${p.script}</script>` : ''}</body></html>
`;
}
