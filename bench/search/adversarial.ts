// The adversarial search corpus (adversarial.json: short common words, a house number first, long
// inputs, typos, digits only, punctuation only, 2-character queries, unicode), each query timed
// alone through HTTP on one keep-alive connection, a first run and a repeat. max_ms is the worst of
// all: the bound every search must keep (docs/decisions.md, Safety: 100 ms at 1M customers).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { Measured } from '../scenarios.js';

const corpus: string[] = JSON.parse(readFileSync(new URL('./adversarial.json', import.meta.url), 'utf8'));
// The corpus's queries of a form a caller gives (a full name, a name with a place or unit, a street
// with its house number and unit, one typo at most): these must complete with their matches; only
// the others may end at the bound (issue "Ten times the data").
const callerForms: string[] = JSON.parse(readFileSync(new URL('./caller-forms.json', import.meta.url), 'utf8'));
const notInCorpus = callerForms.filter((q) => !corpus.includes(q));
if (notInCorpus.length) throw new Error(`caller-forms.json names queries adversarial.json lacks: ${notInCorpus.join(', ')}`);

export async function adversarialSearch(
  base: string,
  apiKey: string,
): Promise<
  Measured & {
    max_ms: number;
    slowest: { q: string; ms: number; status: number }[];
    incomplete: string[];
    incomplete_on_repeat: string[];
    caller_forms_incomplete: string[];
  }
> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.get(`${base}${path}`, { agent, headers: { 'x-api-key': apiKey } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });
  const times: { q: string; ms: number; status: number }[] = [];
  // The queries that ended at the time bound (`incomplete: true`), on either run.
  const incomplete = new Set<string>();
  // Those that ended at the bound on the repeat as well: not only a first run's cold pages and plans.
  const onRepeat = new Set<string>();
  let errors = 0;
  // The keep-alive connection is opened first, untimed (and the client's request path run once): the
  // first query's time was its connect and this process's first request as well as its search.
  await get('/healthz');
  const started = performance.now();
  try {
    for (const q of corpus) {
      for (let run = 0; run < 2; run++) {
        const t0 = performance.now();
        const { status, body } = await get(`/agent/customers/search?q=${encodeURIComponent(q)}`);
        const ms = performance.now() - t0;
        if (status === 200 && (JSON.parse(body) as { incomplete?: boolean }).incomplete) {
          incomplete.add(q);
          if (run === 1) onRepeat.add(q);
        }
        // 400 is the answer to a q under 2 characters after trimming: not an error of the bound.
        if (status !== 200 && status !== 400) errors++;
        times.push({ q, ms, status });
      }
    }
  } finally {
    agent.destroy();
  }
  console.error(
    `agent_search_adversarial: ${incomplete.size} of ${corpus.length} queries ended incomplete (at the time bound) on a run: ${[
      ...incomplete,
    ]
      .map((q) => JSON.stringify(q.length > 40 ? `${q.slice(0, 40)}…` : q))
      .join(', ')}`,
  );
  const callerFormsIncomplete = callerForms.filter((q) => incomplete.has(q));
  console.error(
    `agent_search_adversarial: ${callerFormsIncomplete.length} of ${callerForms.length} caller forms ended incomplete${
      callerFormsIncomplete.length ? `: ${callerFormsIncomplete.map((q) => JSON.stringify(q)).join(', ')}` : ''
    }; on the repeat as well: ${[...onRepeat].map((q) => JSON.stringify(q.length > 40 ? `${q.slice(0, 40)}…` : q)).join(', ') || 'none'}`,
  );
  const sorted = times.map((t) => t.ms).sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    rps: round(times.length / ((performance.now() - started) / 1000)),
    p50_ms: round(at(0.5)!),
    p99_ms: round(at(0.99)!),
    max_ms: round(sorted[sorted.length - 1]!),
    errors,
    requests: times.length,
    incomplete: [...incomplete],
    incomplete_on_repeat: [...onRepeat],
    caller_forms_incomplete: callerFormsIncomplete,
    slowest: [...times]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5)
      .map((t) => ({ ...t, ms: round(t.ms) })),
  };
}
