// The HTTP contracts this server speaks to the switch controller and the billing system: each
// operation once, as zod schemas. The simulator server validates requests with them, the HTTP
// adapters read answers with them, and scripts/export-openapi.ts renders them as the published
// OpenAPI 3.1 documents (openapi/adapters/*.json), so the three cannot drift apart.
import { z } from 'zod';

type HttpMethod = 'GET' | 'POST' | 'PUT';

export interface ContractOperation {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI style, relative to the system's base URL: `/ports/{location_id}/provision`. */
  path: string;
  summary: string;
  description: string;
  params: z.ZodObject;
  /** The JSON body (absent: none is sent). */
  body?: z.ZodObject;
  /** Sends `Idempotency-Key` (every operation that changes something). */
  idempotent: boolean;
  ok: { schema: z.ZodType; description: string };
  /** Statuses (besides the common ones) this operation answers on its merits, with what they mean. */
  errors: Partial<Record<400 | 404 | 409 | 422, string>>;
}

export interface Contract {
  /** switch | billing: the system, its simulator prefix, its fault switch. */
  system: 'switch' | 'billing';
  title: string;
  description: string;
  operations: ContractOperation[];
}

/** The error body of every non-2xx answer (a body that is not this is read as its status alone). */
export const contractError = z
  .object({
    error: z.object({
      code: z
        .string()
        .min(1)
        .max(100)
        .describe(
          'Machine-readable: invalid_request, unauthorized, not_found, idempotency_key_reused, unprocessable, rate_limited, internal_error, unavailable.',
        ),
      message: z.string().max(2000).describe('For the operator reading our logs: what was wrong. Never shown to subscribers.'),
      retryable: z
        .boolean()
        .optional()
        .describe('Informative: this server decides retries by status (see the document description), not by this flag.'),
    }),
  })
  .meta({ id: 'Error' });

export type ContractErrorBody = z.infer<typeof contractError>;

/** An operation key as the Idempotency-Key header carries it: printable ASCII without spaces. */
export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,200}$/;

/** The common statuses: what every implementation may answer, and what this server does then. */
export const COMMON_ERRORS: Record<number, string> = {
  400: 'invalid_request: the request does not match this contract (a bug on one side). Not retried usefully; see "Retries".',
  401: 'unauthorized: missing or wrong signature, a timestamp outside the 5-minute window, or a webhook-id seen before (replay).',
  429: 'rate_limited: retried later by the job that made the call (Retry-After is honoured only as a hint).',
  500: 'internal_error: retried by the job that made the call, with the same Idempotency-Key.',
  503: 'unavailable: retried by the job that made the call, with the same Idempotency-Key.',
};

/** Statuses after which a retry may succeed (plus no answer at all: a network failure or the timeout). */
export const RETRYABLE_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

export const TIMEOUT_MS = 5_000;
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

/** `/ports/{location_id}/provision` with its parameters, each URL-encoded. */
export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** `/ports/{location_id}` as Fastify writes it: `/ports/:location_id`. */
export const fastifyPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
