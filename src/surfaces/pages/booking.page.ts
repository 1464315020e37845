import { createHash } from 'node:crypto';
import { localDate, localTime } from '../../lib/zoned-time.js';
import type { BookingView } from '../../modules/install/index.js';
import { escapeHtml, renderPage } from './layout.js';

// The page's one script, the same bytes on every page (the link comes from data-base), so the
// Content-Security-Policy allows it by hash and nothing else runs.
const SCRIPT = `
const base = document.body.dataset.base;
const msg = document.getElementById('msg');
async function call(method, body) {
  const r = await fetch(base, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  const j = await r.json().catch(() => ({}));
  if (r.ok) location.reload(); else msg.textContent = j.detail || ('Error ' + r.status);
}
document.querySelectorAll('[data-start]').forEach((b) => b.addEventListener('click', () => call('POST', { starts_at: b.dataset.start })));
document.querySelectorAll('[data-cancel]').forEach((b) => b.addEventListener('click', () => call('DELETE')));
`;
export const BOOKING_SCRIPT_HASH = `'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'`;

const esc = (s: string | null | undefined) => escapeHtml(s ?? '');

// Days and times as the building's wall clock: a calendar date is formatted at its own noon UTC,
// so no zone can move it to a neighbouring day.
const fmtDay = (date: string) =>
  new Date(`${date}T12:00:00Z`).toLocaleDateString('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

export interface PageContext {
  provider_name: string;
  first_name: string;
  street: string | null;
  house_number: string | null;
  postal_code: string | null;
  city: string | null;
  unit_label: string | null;
}

/**
 * The small booking page: free windows grouped by day, the current booking with a cancel button.
 * Buttons call the JSON endpoints of the same link (relative URLs, so both mounts work).
 */
export function renderBookingPage(token: string, ctx: PageContext, v: BookingView): string {
  const address = [[ctx.street, ctx.house_number].filter(Boolean).join(' '), [ctx.postal_code, ctx.city].filter(Boolean).join(' ')]
    .filter(Boolean)
    .join(', ');
  const zone = v.time_zone;
  const fmtTime = (iso: string) => localTime(zone, new Date(iso));
  const dayOf = (iso: string) => localDate(zone, new Date(iso));
  const byDay = new Map<string, BookingView['windows']>();
  for (const w of v.windows) {
    const day = dayOf(w.starts_at);
    byDay.set(day, [...(byDay.get(day) ?? []), w]);
  }
  const current = v.booking
    ? `<section class="current"><h2>Your appointment</h2><p><strong>${esc(fmtDay(dayOf(v.booking.starts_at)))}, ${fmtTime(v.booking.starts_at)}–${fmtTime(v.booking.ends_at)} (${esc(zone)} time)</strong></p>
<button type="button" data-cancel>Cancel appointment</button><p class="hint">To move it, choose another window below.</p></section>`
    : '';
  const days = [...byDay.entries()]
    .map(
      ([day, ws]) =>
        `<li><span class="day">${esc(fmtDay(day))}</span> ${ws
          .map((w) => `<button type="button" data-start="${esc(w.starts_at)}">${fmtTime(w.starts_at)}–${fmtTime(w.ends_at)}</button>`)
          .join(' ')}</li>`,
    )
    .join('\n');
  const body = !v.bookable
    ? `<p>This installation can no longer be booked through this link (status ${esc(v.status)}). Please contact ${esc(ctx.provider_name)} support.</p>`
    : `${current}<section><h2>${v.booking ? 'Move to another window' : 'Choose a window'}</h2>
${v.windows.length ? `<ul class="windows">${days}</ul>` : '<p>No free windows at the moment; please try again later.</p>'}
<p class="hint">Four-hour windows on weekdays, times in the building's local time (${esc(zone)}), at least 24 hours ahead${v.move_in_date ? `, from your move-in day ${esc(v.move_in_date)}` : ''}.</p></section>`;
  const base = `./${encodeURIComponent(token)}`;
  return renderPage({
    title: `Book your installation – ${ctx.provider_name}`,
    width: 44,
    style:
      'ul.windows{list-style:none;padding:0}ul.windows li{margin:.5rem 0}.day{display:inline-block;min-width:16rem}' +
      'button{margin:.15rem;padding:.35rem .7rem;cursor:pointer}#msg{font-weight:bold}',
    bodyAttributes: `data-base="${esc(base)}"`,
    main: `<h1>Installation appointment</h1>
<p>Hello ${esc(ctx.first_name)}, this is the installation of your ${esc(ctx.provider_name)} connection${address ? ` at ${esc(address)}` : ''}${ctx.unit_label ? `, unit ${esc(ctx.unit_label)}` : ''}.</p>
<p id="msg" role="status"></p>
${body}`,
    script: SCRIPT,
  });
}
