#!/usr/bin/env bash
# npm run test:reliability: the fault and abuse suite on real PostgreSQL (races, crashes, outages and
# several processes are only proven there). DATABASE_URL defaults to the machine's local cluster.
set -euo pipefail
export DATABASE_URL=${DATABASE_URL:-postgres://root@127.0.0.1:5432/test}
exec npx vitest run test/reliability "$@"
