#!/usr/bin/env bash
# Regenerates src/db/types.ts from the migrations, against a scratch database on the local PostgreSQL.
set -euo pipefail
url=${CODEGEN_ADMIN_URL:-postgres://root@127.0.0.1:5432/test}
psql -q "$url" -c "DROP DATABASE IF EXISTS kysely_codegen_$$" -c "CREATE DATABASE kysely_codegen_$$"
scratch=${url%/*}/kysely_codegen_$$
for f in migrations/*.sql; do psql -q -v ON_ERROR_STOP=1 "$scratch" -f "$f"; done
npx kysely-codegen --url "$scratch" --dialect postgres --date-parser string --out-file src/db/types.ts
psql -q "$url" -c "DROP DATABASE kysely_codegen_$$"
