/**
 * Group commit for many small database writes/reads issued by concurrent jobs: calls made in the
 * same tick are flushed together; while `maxInFlight` flushes are running, further calls wait and
 * go out together in the next one. An idle system pays no added latency (a lone call is flushed at
 * once), a busy one pays one round trip per batch instead of one per call, and a few flushes in
 * flight let the database overlap their commits (one WAL flush covers several).
 *
 * `run` gets the items in call order and returns one result per item, in the same order. If it
 * throws, every call of that batch rejects with the error (callers treat it like their own query
 * failing). A result that is an Error instance rejects only its own call.
 */
export function createBatcher<I, O>(run: (items: I[]) => Promise<(O | Error)[]>, opts: { maxBatch?: number; maxInFlight?: number } = {}) {
  const maxBatch = opts.maxBatch ?? 256;
  const maxInFlight = opts.maxInFlight ?? 2;
  let waiting: { item: I; resolve: (v: O) => void; reject: (e: unknown) => void }[] = [];
  let inFlight = 0;
  let scheduled = false;

  async function flush() {
    scheduled = false;
    if (inFlight >= maxInFlight || waiting.length === 0) return;
    inFlight++;
    const batch = waiting.slice(0, maxBatch);
    waiting = waiting.slice(batch.length);
    try {
      const results = await run(batch.map((w) => w.item));
      if (results.length !== batch.length) throw new Error(`batch returned ${results.length} results for ${batch.length} items`);
      batch.forEach((w, i) => {
        const r = results[i];
        if (r instanceof Error) w.reject(r);
        else w.resolve(r as O); // one result per item: the length is checked above
      });
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      inFlight--;
      if (waiting.length > 0) schedule();
    }
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    // After the current synchronous work and its microtasks: calls made in the same tick join.
    setImmediate(() => void flush());
  }

  return function call(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (inFlight < maxInFlight) schedule();
    });
  };
}
