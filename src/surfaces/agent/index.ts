import type { FastifyPluginAsync } from 'fastify';
import { useAgentErrors } from '../../plugins/error-handlers.js';
import { agentApiKey } from '../../plugins/auth.js';

/** The /agent surface: every call carries an agent API key; every error is the envelope. */
export const agentSurface: FastifyPluginAsync = async (app) => {
  useAgentErrors(app);
  app.addHook('onRequest', agentApiKey());
};
