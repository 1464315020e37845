// The verified-sessions owner: the session a one-time code opens, its token rules, and the reads
// the verified /agent routes, tickets and the plan-change snapshot make of it. Other modules import only this file.
export { findSessionByHash, insertSession, sessionOf, type SessionColumns, type SessionRow } from './verified-sessions.repository.js';
export { judgeSession, sessionTokenHash } from './verified-sessions.rules.js';
