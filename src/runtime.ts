/**
 * The Node flags a server process runs with: `npm start` (and so the Dockerfile) spells the same
 * default in package.json; the benchmark harness and the tests' server processes use this.
 * V8 sizes its old generation from the machine's memory (about 4 GB on 24 GB) and collects late, so
 * a server that had just served a burst sat above 300 MB RSS with well under 100 MB live. A 256 MB
 * old generation keeps the same load under about 200 MB RSS for a little more GC work
 * (bench/README.md) and leaves the live heap several times its measured peak. SERVER_HEAP_MB
 * changes it (flags on the command line win over NODE_OPTIONS).
 */
const SERVER_HEAP_MB = Number(process.env.SERVER_HEAP_MB) || 256;
export const SERVER_NODE_FLAGS = [`--max-old-space-size=${SERVER_HEAP_MB}`];
