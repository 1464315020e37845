import type { Db } from '../../db/database.js';
import { selectOne } from './probe.repository.js';

export interface ProbeDeps {
  db: Db;
}

/** A database round trip and nothing else (the bench's floor). */
export function createProbeService({ db }: ProbeDeps) {
  return { selectOne: () => selectOne(db) };
}
