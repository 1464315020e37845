import type { Executor } from '../../db/executor.js';

/** Records an event id; false when it was recorded before (a redelivery: not applied twice). */
export async function recordCardEvent(ex: Executor, e: { id: string; type: string; account: string | null; now: Date }): Promise<boolean> {
  const r = await ex
    .insertInto('card_processor_events')
    .values({ id: e.id, type: e.type, account: e.account, received_at: e.now })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return !!r;
}
