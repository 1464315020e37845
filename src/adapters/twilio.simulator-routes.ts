import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyPluginAsync, type FastifyReply } from 'fastify';
import { checkParams, readVendorDocument, type FormValue, type JsonSchema } from './vendor-documents.js';

// A local stand-in for Twilio's Messaging API (docs/integration/sms.md, "How to test"): POST
// /2010-04-01/Accounts/{AccountSid}/Messages.json checked against the operation Twilio publishes
// (test/fixtures/twilio/messages-create.json, from twilio/twilio-oai spec/json/twilio_api_v2010.json):
// the path's AccountSid pattern, basic auth, the form parameters, To required, one of From or
// MessagingServiceSid, one of Body, MediaUrl or ContentSid. Answers 201 with Twilio's own example.

interface MessagesCreate {
  operation: {
    path_parameters: { name: string; schema: { pattern: string } }[];
    body: JsonSchema & { properties: Record<string, JsonSchema> };
    conditional: string[][];
    response_201_example: Record<string, unknown>;
  };
}

interface TwilioStandIn {
  /** Account SID → auth token the stand-in accepts. */
  accounts: Map<string, string>;
  /** Messages accepted, oldest first. */
  readonly messages: { accountSid: string; to: string; from: string | null; messagingServiceSid: string | null; body: string }[];
  /** 'down': 500; 'hang': never answers (the client's timeout); 'refuse': 400 (e.g. an unverified number). */
  fault: 'none' | 'down' | 'hang' | 'refuse';
}

const E164 = /^\+[1-9]\d{1,14}$/;
// Twilio's conditional names are snake_case; the form parameters are PascalCase.
const pascal = (snake: string) => snake.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase());

export const twilioSimulatorRoutes: FastifyPluginAsync<{ standIn: TwilioStandIn }> = async (app, opts) => {
  const { operation } = readVendorDocument<MessagesCreate>('twilio', 'messages-create.json');
  const sidPattern = new RegExp(operation.path_parameters.find((p) => p.name === 'AccountSid')!.schema.pattern);
  const standIn = opts.standIn;
  const twilioError = (reply: FastifyReply, status: number, code: number, message: string) =>
    reply.code(status).send({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const form: Record<string, FormValue> = {};
    for (const [k, v] of new URLSearchParams(body as string)) {
      if (operation.body.properties[k]?.type === 'array') form[k] = [...((form[k] as string[] | undefined) ?? []), v];
      else form[k] = v;
    }
    done(null, form);
  });

  app.post<{ Params: { sid: string }; Body: Record<string, FormValue> }>('/Accounts/:sid/Messages.json', async (request, reply) => {
    if (standIn.fault === 'hang') await new Promise(() => undefined);
    if (standIn.fault === 'down') return twilioError(reply, 500, 20500, 'Internal Server Error');
    const sid = request.params.sid;
    if (!sidPattern.test(sid)) return twilioError(reply, 404, 20404, 'The requested resource was not found');
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const [user, pass] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    if (user !== sid || !pass || standIn.accounts.get(sid) !== pass) return twilioError(reply, 401, 20003, 'Authenticate');
    const form = request.body ?? {};
    for (const [k, v] of Object.entries(form)) {
      const schema = operation.body.properties[k];
      if (!schema) return twilioError(reply, 400, 21609, `Unknown parameter: ${k}`);
      const problem = checkParams({ ...schema, format: undefined }, v, k);
      if (problem) return twilioError(reply, 400, 21610, problem.message);
      if (schema.format === 'phone-number' && typeof v === 'string' && !E164.test(v))
        return twilioError(reply, 400, 21211, `Invalid '${k}' Phone Number: ${v}`);
    }
    for (const k of operation.body.required ?? [])
      if (form[k] === undefined) return twilioError(reply, 400, 21604, `A '${k}' phone number is required.`);
    for (const group of operation.conditional) {
      if (!group.some((name) => form[pascal(name)] !== undefined))
        return twilioError(reply, 400, 21602, `One of ${group.map(pascal).join(', ')} is required.`);
    }
    const text = typeof form.Body === 'string' ? form.Body : '';
    if (text.length > 1600) return twilioError(reply, 400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    if (standIn.fault === 'refuse') return twilioError(reply, 400, 21608, 'The number is unverified.');
    const message = {
      accountSid: sid,
      to: form.To as string,
      from: (form.From as string | undefined) ?? null,
      messagingServiceSid: (form.MessagingServiceSid as string | undefined) ?? null,
      body: text,
    };
    standIn.messages.push(message);
    const msgSid = `SM${randomBytes(16).toString('hex')}`;
    return reply.code(201).send({
      ...operation.response_201_example,
      sid: msgSid,
      account_sid: sid,
      to: message.to,
      from: message.from,
      messaging_service_sid: message.messagingServiceSid,
      body: text,
      status: 'queued',
      uri: `/2010-04-01/Accounts/${sid}/Messages/${msgSid}.json`,
    });
  });
};

/** The Twilio stand-in on its own port (tests: 127.0.0.1:0); TWILIO_API_URL is `url`. */
export async function startTwilioStandIn(o: { host?: string; port?: number } = {}) {
  const standIn: TwilioStandIn = { accounts: new Map(), messages: [], fault: 'none' };
  const app = Fastify({ logger: false });
  await app.register(twilioSimulatorRoutes, { prefix: '/2010-04-01', standIn });
  const url = await app.listen({ host: o.host ?? '127.0.0.1', port: o.port ?? 0 });
  return { url, standIn, close: () => app.close() };
}
