// What each /agent operation does as an MCP tool: its annotations, whether it takes a verified
// session, and the one service call its route makes. The rules around the call (rate limit,
// ownership before validation, validation, verified session, response schema, error codes) are
// the route's and run in mcp.call.ts, in the route's order.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { actorOf } from '../../plugins/auth.js';
import {
  agentApplyBody,
  agentPreviewBody,
  agentTarget,
  requireConfirmed,
  type AgentPlanChangeIds,
} from '../../modules/plan-change/plan-change.schemas.js';
import { agentOperations } from './mcp.catalogue.js';

/** The tools' services: the container's, under the names the tool table uses. */
export function servicesOf(app: FastifyInstance) {
  const s = app.services;
  return {
    search: s.customerSearch,
    verification: s.verification,
    reads: s.customerReads,
    changes: s.customerChanges,
    copies: s.invoiceCopies,
    notes: s.notes,
    planChange: s.planChange,
    tickets: s.tickets,
  };
}

type Services = ReturnType<typeof servicesOf>;

/** A tool call's validated input, as its route would have it. */
export interface ToolInput {
  params: Record<string, string>;
  query: Record<string, any>;
  body: Record<string, any>;
  /** The owned customer of `params.customerId` (routes with that parameter), as the database spells its id. */
  customerId: string;
  session?: string;
}

interface ToolContext {
  request: FastifyRequest;
  services: Services;
  providerId: string;
  /** Who acts and for which provider, as the routes pass it to a write (audit, mail, tickets). */
  caller: ReturnType<typeof actorOf> & { providerId: string; requestId: string };
  /** When the tool call arrived (the search time bound counts from it, as from a request's arrival). */
  startedAt: number;
}

export interface ToolSpec {
  annotations: ToolAnnotations;
  /** `optional`: the route reads X-Verified-Session without demanding it (tickets). Required is the route's own. */
  session?: 'optional';
  run(ctx: ToolContext, input: ToolInput): Promise<unknown>;
}

// MCP's hints: destructiveHint defaults to true for a tool that is not read-only, so every write
// says it; idempotentHint: the same call again changes nothing more (reads always do).
const READ: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
const SENDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** Keyed by operationId; a test holds this table and the agent routes together. */
export const TOOLS: Record<string, ToolSpec> = {
  searchCustomers: {
    annotations: READ,
    run: ({ services, providerId, startedAt }, { query }) => services.search.search(providerId, query.q, query.limit, startedAt),
  },
  issueVerificationCode: {
    // A new code makes the previous one invalid: not idempotent.
    annotations: SENDS,
    run: ({ services, caller }, { body }) => services.verification.issue(caller, body.customer_id, body.channel),
  },
  checkVerificationCode: {
    annotations: SENDS,
    run: ({ services, caller }, { body }) => services.verification.check(caller, body.customer_id, body.code),
  },
  getCustomerProfile: {
    annotations: READ,
    run: ({ services, providerId }, { customerId }) => services.reads.profile(providerId, customerId),
  },
  getBillingSummary: {
    annotations: READ,
    run: ({ services, providerId }, { customerId }) => services.reads.billingSummary(providerId, customerId),
  },
  listPayments: {
    annotations: READ,
    run: ({ services, providerId }, { customerId, query }) => services.reads.payments(providerId, customerId, query.limit),
  },
  getNetworkHealth: {
    annotations: READ,
    run: ({ services, providerId }, { customerId }) => services.reads.networkHealth(providerId, customerId),
  },
  listCustomerTickets: {
    annotations: READ,
    run: ({ services, providerId }, { customerId, query }) => services.tickets.listForCustomer(providerId, customerId, query.limit),
  },
  previewPlanChange: {
    annotations: READ,
    async run({ services, providerId }, { customerId, body }) {
      const p = await services.planChange.preview(agentTarget(providerId, customerId, body as AgentPlanChangeIds));
      const refusal = services.planChange.refusalOf(p);
      if (refusal) throw refusal;
      return agentPreviewBody({ ...p, quote: p.quote!, quoteToken: p.quoteToken! });
    },
  },
  applyPlanChange: {
    // A billing-affecting change; the same call again is refused (same_plan / plan_change_limit), not repeated.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async run({ services, providerId, caller }, { customerId, body }) {
      requireConfirmed(body.confirm);
      const r = await services.planChange.apply({
        ...agentTarget(providerId, customerId, body as AgentPlanChangeIds),
        quoteToken: body.quote_token,
        actor: { actorType: caller.actorType, actor: caller.actor },
        requestId: caller.requestId,
      });
      return agentApplyBody(r);
    },
  },
  updateCustomerContact: {
    // Overwrites the contact at once; the same values again change nothing more.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: ({ services, caller }, { customerId, body }) => services.changes.updateContact(caller, customerId, body as never),
  },
  sendPortalLink: {
    annotations: SENDS,
    run: ({ services, caller }, { customerId, body }) => services.changes.sendPortalLink(caller, customerId, body.action),
  },
  resendInvoice: {
    annotations: SENDS,
    run: ({ services, caller }, { customerId, params }) => services.copies.resend(caller, customerId, params.invoiceId),
  },
  addCustomerNote: {
    annotations: SENDS,
    run: ({ services, caller, request }, { customerId, body }) =>
      services.notes.addAgentNote({ ...caller, keyPrefix: request.apiKey!.prefix }, customerId, body.note),
  },
  createTicket: {
    annotations: SENDS,
    session: 'optional',
    run: ({ services, caller }, { body, session }) => services.tickets.createFromAgent(caller, body as never, session),
  },
};

/** The operations that are tools, in the conversation's order (the order of TOOLS). */
export function toolOperations(app: FastifyInstance) {
  const order = Object.keys(TOOLS);
  return agentOperations(app)
    .filter((op) => TOOLS[op.operationId])
    .sort((a, b) => order.indexOf(a.operationId) - order.indexOf(b.operationId));
}
