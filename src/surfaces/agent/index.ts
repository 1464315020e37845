import type { FastifyPluginAsync } from 'fastify';
import { useAgentErrors } from '../../plugins/error-handlers.js';
import { agentApiKey } from '../../plugins/auth.js';
import { recordScopeHook } from '../../plugins/route-contract.js';
import { useExamples } from '../../plugins/openapi-examples.js';
import { AGENT_EXAMPLES } from './agent.examples.js';
import { useOperationDocs, withErrorCases } from './agent.errors.js';
import { agentPlanChangeRoutes } from './plan-change.routes.js';
import { searchRoutes } from './search.routes.js';
import { verifyRoutes } from './verify.routes.js';
import { customerReadRoutes } from './customer-read.routes.js';
import { customerWriteRoutes } from './customer-write.routes.js';
import { ticketRoutes } from './tickets.routes.js';
import { recentChangesRoutes } from './recent-changes.routes.js';
import { mcpRoutes } from './mcp.routes.js';

/** The /agent surface: every call carries an agent API key; every error is the envelope. */
export const agentSurface: FastifyPluginAsync = async (app) => {
  useAgentErrors(app);
  const apiKey = agentApiKey();
  app.addHook('onRequest', apiKey);
  recordScopeHook(app, apiKey);
  useOperationDocs(app);
  useExamples(app, withErrorCases(AGENT_EXAMPLES));
  await app.register(agentPlanChangeRoutes);
  await app.register(searchRoutes);
  await app.register(verifyRoutes);
  await app.register(customerReadRoutes);
  await app.register(customerWriteRoutes);
  await app.register(recentChangesRoutes);
  await app.register(ticketRoutes);
  await app.register(mcpRoutes);
};
