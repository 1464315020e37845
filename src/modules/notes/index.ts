// The notes owner: an agent's notes on a subscriber.
export { createNotesService } from './notes.service.js';
