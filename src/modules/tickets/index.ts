// The tickets owner: support tickets opened by an agent or by mail.
export { createTicketsService } from './tickets.service.js';
