// What each /agent operation adds as an MCP tool: its annotations, whether it takes a verified
// session it does not demand, and the arguments it requires beyond its route's. Everything else is
// the route's: a tool call is a request to the route (mcp.call.ts), and a rule a tool alone keeps
// (the plan-change tool applies only a quoted price) sits in the route's handler (tool-call.ts).
import type { FastifyInstance } from 'fastify';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { agentOperations } from './mcp.catalogue.js';

export interface ToolSpec {
  annotations: ToolAnnotations;
  /** `optional`: the route reads X-Verified-Session without demanding it (tickets). Required is the route's own. */
  session?: 'optional';
  /** Arguments the tool requires beyond its route's (listed as required in its input schema). */
  requires?: string[];
}

// MCP's hints: destructiveHint defaults to true for a tool that is not read-only, so every write
// says it; idempotentHint: the same call again changes nothing more (reads always do).
const READ: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
const SENDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
// openWorldHint: the tool reaches outside this server's data, here a mail (or SMS) to the customer's
// own address, which no later call can take back (issue 30 §6).
const MAILS: ToolAnnotations = { ...SENDS, openWorldHint: true };

/** Keyed by operationId; a test holds this table and the agent routes together. */
export const TOOLS: Record<string, ToolSpec> = {
  searchCustomers: { annotations: READ },
  issueVerificationCode: {
    // A new code makes the previous one invalid: not idempotent.
    annotations: MAILS,
  },
  checkVerificationCode: { annotations: SENDS },
  getCustomerProfile: { annotations: READ },
  getBillingSummary: { annotations: READ },
  listPayments: { annotations: READ },
  getNetworkHealth: { annotations: READ },
  listCustomerTickets: { annotations: READ },
  listPlanOptions: { annotations: READ },
  previewPlanChange: { annotations: READ },
  applyPlanChange: {
    // A billing-affecting change; the same call again is refused (same_plan / plan_change_limit), not repeated.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    // The tool applies only a quoted price: quote_token is required (an escalation state has none).
    requires: ['quote_token'],
  },
  updateCustomerContact: {
    // Overwrites the contact at once; the same values again change nothing more.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  },
  sendPortalLink: { annotations: MAILS },
  resendInvoice: { annotations: MAILS },
  listRecentChanges: { annotations: READ },
  resendChangeConfirmation: { annotations: MAILS },
  addCustomerNote: { annotations: SENDS },
  createTicket: {
    annotations: SENDS,
    session: 'optional',
  },
};

/** The operations that are tools, in the conversation's order (the order of TOOLS). */
export function toolOperations(app: FastifyInstance) {
  const order = Object.keys(TOOLS);
  return agentOperations(app)
    .filter((op) => TOOLS[op.operationId])
    .sort((a, b) => order.indexOf(a.operationId) - order.indexOf(b.operationId));
}
