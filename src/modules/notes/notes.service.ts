import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { type Actor, recordAudit } from '../audit/index.js';
import { subscriberNotFound, findOwnedSubscriber } from '../subscribers/index.js';
import { insertNote } from './notes.repository.js';

interface Caller extends Actor {
  providerId: string;
  keyPrefix: string;
  requestId: string;
}

export interface NotesDeps {
  db: Db;
  clock: Clock;
}

/** Internal, operator-visible notes. Written by the agent, never read back on /agent. */
export function createNotesService({ db, clock }: NotesDeps) {
  async function addAgentNote(caller: Caller, customerId: string, body: string) {
    return db.transaction().execute(async (trx) => {
      const customer = await findOwnedSubscriber(trx, caller.providerId, customerId);
      if (!customer) throw subscriberNotFound();
      const now = clock.now();
      const id = newId();
      await insertNote(trx, {
        id,
        providerId: caller.providerId,
        subscriberId: customer.id,
        author: 'ai_agent',
        keyPrefix: caller.keyPrefix,
        body,
        now,
      });
      await recordAudit(trx, {
        actorType: caller.actorType,
        actor: caller.actor,
        providerId: caller.providerId,
        requestId: caller.requestId,
        action: 'agent.note.create',
        entityType: 'customer',
        entityId: customer.id,
        after: { note_id: id, author: 'ai_agent', length: body.length },
        at: now,
      });
      return { note_id: id, customer_id: customer.id, author: 'ai_agent' as const, created_at: now.toISOString() };
    });
  }
  return { addAgentNote };
}

/** @public The type of what the container builds. */
export type NotesService = ReturnType<typeof createNotesService>;
