import type { Executor } from '../../db/executor.js';

export async function insertNote(
  db: Executor,
  n: { id: string; providerId: string; subscriberId: string; author: string; keyPrefix: string | null; body: string; now: Date },
) {
  await db
    .insertInto('customer_notes')
    .values({
      id: n.id,
      provider_id: n.providerId,
      subscriber_id: n.subscriberId,
      author: n.author,
      author_key_prefix: n.keyPrefix,
      body: n.body,
      created_at: n.now,
    })
    .execute();
}
