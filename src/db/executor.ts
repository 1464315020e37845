import type { Kysely, Transaction } from 'kysely';
import type { DB } from './types.js';

/** What a repository function runs on: the pool, or the transaction its caller opened. */
export type Executor = Kysely<DB> | Transaction<DB>;
