import { AdapterError } from './types.js';

// SMS through Twilio's Messaging REST API (docs/integration/sms.md): one form-encoded POST to
// /2010-04-01/Accounts/{AccountSid}/Messages.json with HTTP basic auth (account SID, auth token),
// To/From (or MessagingServiceSid)/Body. No SDK: fetch and a timeout are all it takes.

export interface TwilioCredentials {
  accountSid: string;
  authToken: string;
  /** An E.164 number, or a Messaging Service SID (MG…) sent as MessagingServiceSid. */
  from: string;
}

/** What sends one text: Twilio with a provider's credentials, or the embedded simulator. */
export interface SmsSender {
  send(req: { to: string; text: string }): Promise<void>;
}

export const TWILIO_ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;
export const TWILIO_MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;
export const E164 = /^\+[1-9]\d{6,14}$/;

const DEFAULT_TIMEOUT_MS = 10_000;

export function createTwilioClient(o: { baseUrl: string; timeoutMs?: number; fetch?: typeof fetch }) {
  const base = o.baseUrl.replace(/\/$/, '');
  const doFetch = o.fetch ?? fetch;
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  return {
    sender(creds: TwilioCredentials): SmsSender {
      return {
        async send({ to, text }) {
          const form = new URLSearchParams({ To: to, Body: text });
          if (TWILIO_MESSAGING_SERVICE_SID.test(creds.from)) form.set('MessagingServiceSid', creds.from);
          else form.set('From', creds.from);
          const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(creds.accountSid)}/Messages.json`;
          let res: Response;
          try {
            res = await doFetch(url, {
              method: 'POST',
              headers: {
                authorization: `Basic ${Buffer.from(`${creds.accountSid}:${creds.authToken}`).toString('base64')}`,
                'content-type': 'application/x-www-form-urlencoded',
                accept: 'application/json',
              },
              body: form.toString(),
              signal: AbortSignal.timeout(timeoutMs),
            });
          } catch (err) {
            const name = (err as Error)?.name;
            if (name === 'TimeoutError' || name === 'AbortError')
              throw new AdapterError('sms', 'timeout', `SMS gateway did not answer within ${timeoutMs} ms`);
            throw new AdapterError('sms', 'unreachable', 'SMS gateway unreachable');
          }
          if (res.status === 201 || res.status === 200) {
            await res.body?.cancel();
            return;
          }
          // Twilio's error body: {code, message, more_info, status}. Never echo the request (it holds the code).
          let code: unknown;
          try {
            code = ((await res.json()) as { code?: unknown })?.code;
          } catch {
            code = undefined;
          }
          throw new AdapterError(
            'sms',
            'failed',
            // eslint-disable-next-line @typescript-eslint/no-base-to-string -- Twilio's error code, untyped JSON, as it came
            `SMS gateway refused the message: HTTP ${res.status}${code ? `, Twilio error ${String(code)}` : ''}`,
          );
        },
      };
    },
  };
}
