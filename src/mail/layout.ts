// One description of a mail body, rendered twice: plain text and simple, accessible HTML.
// Every interpolated value goes through escapeHtml in the HTML rendering.

export interface MailBrand {
  /** The provider's name as customers know it (branding.display_name, else the provider name). */
  name: string;
  supportEmail: string;
  supportPhone?: string | null;
}

export type Block =
  | { kind: 'p'; text: string }
  | { kind: 'button'; label: string; url: string }
  | { kind: 'code'; code: string; label: string }
  | { kind: 'facts'; rows: [label: string, value: string][] }
  | { kind: 'quote'; text: string }
  | { kind: 'small'; text: string };

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** For subjects and one-line facts: no line breaks or control characters from user data. */
export function oneLine(value: unknown, max = 200): string {
  const s = String(value)
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

const FONT = 'font-family:Arial,Helvetica,sans-serif;';

function blockHtml(b: Block): string {
  switch (b.kind) {
    case 'p':
      return `<p style="margin:0 0 16px;">${escapeHtml(b.text).replace(/\n/g, '<br>')}</p>`;
    case 'small':
      return `<p style="margin:0 0 16px;font-size:14px;color:#4b5563;">${escapeHtml(b.text).replace(/\n/g, '<br>')}</p>`;
    case 'button':
      return (
        `<p style="margin:24px 0;"><a href="${escapeHtml(b.url)}" style="display:inline-block;padding:12px 20px;background:#0b5cad;color:#ffffff;` +
        `text-decoration:none;border-radius:4px;font-weight:bold;">${escapeHtml(b.label)}</a></p>` +
        `<p style="margin:0 0 16px;font-size:14px;color:#4b5563;">If the button does not work, copy this address into your browser:<br>` +
        `<a href="${escapeHtml(b.url)}" style="color:#0b5cad;word-break:break-all;">${escapeHtml(b.url)}</a></p>`
      );
    case 'code':
      // Screen readers read the spaced-out label digit by digit instead of "one hundred twenty-three thousand…".
      return (
        `<p style="margin:24px 0;font-size:28px;font-weight:bold;letter-spacing:6px;font-family:'Courier New',Courier,monospace;" ` +
        `aria-label="${escapeHtml(`${b.label}: ${b.code.split('').join(' ')}`)}">${escapeHtml(b.code)}</p>`
      );
    case 'facts':
      return (
        `<table style="border-collapse:collapse;margin:0 0 16px;${FONT}font-size:15px;">` +
        b.rows
          .map(
            ([k, v]) =>
              `<tr><th scope="row" style="text-align:left;padding:4px 16px 4px 0;font-weight:normal;color:#4b5563;vertical-align:top;">${escapeHtml(k)}</th>` +
              `<td style="padding:4px 0;vertical-align:top;">${escapeHtml(v)}</td></tr>`,
          )
          .join('') +
        `</table>`
      );
    case 'quote':
      return `<blockquote style="margin:0 0 16px;padding:8px 16px;border-left:4px solid #d1d5db;white-space:pre-wrap;">${escapeHtml(b.text)}</blockquote>`;
  }
}

function blockText(b: Block): string {
  switch (b.kind) {
    case 'p':
    case 'small':
      return b.text;
    case 'button':
      return `${b.label}:\n${b.url}`;
    case 'code':
      return `${b.label}: ${b.code}`;
    case 'facts':
      return b.rows.map(([k, v]) => `${k}: ${v}`).join('\n');
    case 'quote':
      return b.text
        .split('\n')
        .map((l) => `> ${l}`)
        .join('\n');
  }
}

function footer(brand: MailBrand): { text: string; html: string } {
  const phone = brand.supportPhone ? ` or call ${brand.supportPhone}` : '';
  return {
    text: `--\n${brand.name}\nQuestions? Write to ${brand.supportEmail}${phone}.`,
    html:
      `<hr style="border:none;border-top:1px solid #e5e7eb;margin:24px 0 16px;">` +
      `<p style="margin:0;font-size:14px;color:#4b5563;">${escapeHtml(brand.name)}<br>Questions? Write to ` +
      `<a href="mailto:${escapeHtml(brand.supportEmail)}" style="color:#0b5cad;">${escapeHtml(brand.supportEmail)}</a>${escapeHtml(phone)}.</p>`,
  };
}

/** Renders the blocks into the plain-text and HTML bodies, with the brand's header and footer. */
export function render(brand: MailBrand, title: string, blocks: Block[]): { text: string; html: string } {
  const f = footer(brand);
  const text = `${blocks.map(blockText).join('\n\n')}\n\n${f.text}\n`;
  const html =
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title></head>` +
    `<body style="margin:0;padding:0;background:#f4f4f5;">` +
    `<div role="article" aria-label="${escapeHtml(title)}" lang="en" style="max-width:600px;margin:0 auto;padding:24px;${FONT}` +
    `font-size:16px;line-height:1.5;color:#1f2937;background:#ffffff;">` +
    `<p style="margin:0 0 24px;font-size:20px;font-weight:bold;">${escapeHtml(brand.name)}</p>` +
    `<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3;">${escapeHtml(title)}</h1>` +
    blocks.map(blockHtml).join('') +
    f.html +
    `</div></body></html>\n`;
  return { text, html };
}
