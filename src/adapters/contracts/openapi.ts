// Renders a Contract as its published OpenAPI 3.1 document (openapi/adapters/<system>.json).
import { z } from 'zod';
import {
  COMMON_ERRORS,
  contractError,
  SIGNATURE_TOLERANCE_SECONDS,
  TIMEOUT_MS,
  type Contract,
  type ContractOperation,
} from './contract.js';

type Json = Record<string, unknown>;

/** The transport rules every contract shares: signing, idempotency, timeouts, retries, errors. */
const TRANSPORT = `
## Transport
- **Signing.** Every request carries Standard Webhooks headers: \`webhook-id\` (unique per request; a retry gets a new one),
  \`webhook-timestamp\` (unix seconds) and \`webhook-signature\` (\`v1,<base64 HMAC-SHA256>\`, several space-separated while a
  secret is rotated). The HMAC key is the shared secret (\`whsec_<base64>\`, the bytes after the prefix). The signed content is
  \`<webhook-id>.<webhook-timestamp>.<payload>\` where **payload** is \`<METHOD> <path>\\n<Idempotency-Key or empty>\\n<raw body or empty>\`,
  \`<path>\` being the operation's path of this document with its parameters filled in (as sent, URL-encoded), **relative to the
  base URL** (a base URL of https://oss.example.net/netsvc gives \`POST /ports/6f1c.../provision\`). With the \`standardwebhooks\`
  library: compare \`new Webhook(secret).sign(webhookId, new Date(timestamp * 1000), payload)\` with each signature in constant
  time (its \`verify()\` also parses the payload as JSON, which this payload is not). Method, path and idempotency key are signed, so a captured request
  cannot be replayed against another port or operation.
- **Replay window.** Refuse (401) a timestamp more than ${SIGNATURE_TOLERANCE_SECONDS} s away from your clock, and a webhook-id
  already accepted within that window.
- **Idempotency.** Every operation that changes something carries \`Idempotency-Key\`: the operation key of the job making the call.
  A job retried after a timeout repeats it; apply a key once and answer a repeat with the first answer.
- **Timeouts.** This server waits ${TIMEOUT_MS / 1000} s for a complete answer (connect, send, answer, body). After that the call counts as
  failed; the request may still be applied by you, which the Idempotency-Key makes safe.
- **Retries.** This server makes one attempt per call. Calls made by background jobs (ports, schedules) are retried by the job
  with backoff and the same Idempotency-Key: after no answer, a timeout, 408, 425, 429, 500, 502, 503 and 504 (retry expected
  to succeed), and also after other 4xx until the job's attempts run out (then an operator is alerted). Calls made while a
  person waits (credit notes) are not retried: the person gets "try again later" (503).
- **Errors.** Any non-2xx answer should carry \`{"error": {"code", "message"}}\`; redirects are not followed (a 3xx is an error).
- **Answers.** JSON (\`application/json\`). Fields this document does not name are ignored.
`;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): { schema: Json; defs: Json } {
  const s = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as Json;
  const { $schema: _s, $defs = {}, ...rest } = s as Json & { $defs?: Json };
  const rewrite = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
  return { schema: rewrite(rest), defs: rewrite($defs) };
}

function parameters(op: ContractOperation): Json[] {
  const params = jsonSchema(op.params, 'input').schema as { properties: Record<string, Json> };
  const out: Json[] = Object.entries(params.properties).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: 'path', required: true, description: description ?? name, schema: rest };
  });
  if (op.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      description: 'The operation key of the job making the call (printable ASCII, no spaces, 1-200 characters). Apply once.',
      schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,200}$' },
    });
  }
  for (const [name, description, example] of [
    ['webhook-id', 'Unique per request (msg_...): refuse one seen before within the replay window.', 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W'],
    ['webhook-timestamp', 'Unix seconds when the request was signed.', '1764670000'],
    [
      'webhook-signature',
      'v1,<base64 HMAC-SHA256 of the signed content>; space-separated list.',
      'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    ],
  ] as const) {
    out.push({ name, in: 'header', required: true, description, schema: { type: 'string' }, example });
  }
  return out;
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

export function contractDocument(contract: Contract): Json {
  const schemas: Json = { ...jsonSchema(contractError, 'input').defs };
  const paths: Record<string, Json> = {};
  for (const op of contract.operations) {
    const ok = jsonSchema(op.ok.schema, 'input');
    Object.assign(schemas, ok.defs);
    const responses: Json = { 200: { description: op.ok.description, content: { 'application/json': { schema: ok.schema } } } };
    const errors = { ...COMMON_ERRORS, ...op.errors } as Record<number, string>;
    for (const [status, description] of Object.entries(errors)) {
      responses[status] = errorResponse(description);
    }
    const operation: Json = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      tags: [contract.system],
      parameters: parameters(op),
      responses,
    };
    if (op.body) {
      const body = jsonSchema(op.body, 'input');
      operation.requestBody = { required: true, content: { 'application/json': { schema: body.schema } } };
    }
    paths[op.path] = { ...(paths[op.path] ?? {}), [op.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: contract.title,
      version: '1.0.0',
      description: `${contract.description}\n${TRANSPORT}`,
      license: { name: 'Proprietary: published for implementers of this contract', identifier: 'LicenseRef-Contract' },
    },
    servers: [
      {
        url: `https://${contract.system}.provider.invalid/v1`,
        description: "The provider's base URL (any https URL; the paths are relative to it)",
      },
    ],
    tags: [{ name: contract.system, description: contract.title }],
    security: [{ standardWebhooksSignature: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        standardWebhooksSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description:
            'HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<METHOD> <path>\\n<Idempotency-Key>\\n<body>` with the shared secret; see "Transport".',
        },
      },
    },
  };
}
