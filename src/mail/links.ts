// Where the links in mails point. Paths are relative to config.publicBaseUrl; the token is the
// clear single-use token from createLinkToken (base64url, so it survives a path or a query as is,
// and is still URL-encoded for safety).

/** Password reset (15 min), account activation (14 days) and staff invite (14 days): one page, POST /auth/set-password. */
const SET_PASSWORD_PATH = '/set-password';
/** Third-line installation booking: pick, move or cancel the four-hour window. */
const BOOKING_PATH = '/booking';
/** Card payment of an invoice (the first invoice after installation). */
const PAYMENT_PATH = '/pay';
/** Undo an /agent contact edit or plan change (24 hours, single use): GET shows the form, POST undoes. */
export const ROLLBACK_PATH = '/rollback';

const base = (baseUrl: string) => baseUrl.replace(/\/+$/, '');

/** `<base>/set-password?token=<token>` */
export const setPasswordUrl = (baseUrl: string, token: string) => `${base(baseUrl)}${SET_PASSWORD_PATH}?token=${encodeURIComponent(token)}`;
/** `<base>/booking/<token>` */
export const bookingUrl = (baseUrl: string, token: string) => `${base(baseUrl)}${BOOKING_PATH}/${encodeURIComponent(token)}`;
/** `<base>/pay/<token>` */
export const paymentUrl = (baseUrl: string, token: string) => `${base(baseUrl)}${PAYMENT_PATH}/${encodeURIComponent(token)}`;
/** `<base>/rollback/<token>` */
export const rollbackUrl = (baseUrl: string, token: string) => `${base(baseUrl)}${ROLLBACK_PATH}/${encodeURIComponent(token)}`;
