#!/usr/bin/env bash
# Regenerates src/db/types.ts from the schema (the migrator, as on every start), against a scratch database on the local PostgreSQL.
# The migrator's own tables (schema_migrations, schema_functions) are read only through raw SQL (ops/ops.repository.ts), so they get no types.
set -euo pipefail
url=${CODEGEN_ADMIN_URL:-postgres://root@127.0.0.1:5432/test}
psql -q "$url" -c "DROP DATABASE IF EXISTS kysely_codegen_$$" -c "CREATE DATABASE kysely_codegen_$$"
scratch=${url%/*}/kysely_codegen_$$
DATABASE_URL="$scratch" npx tsx scripts/migrate.ts >/dev/null
npx kysely-codegen --url "$scratch" --dialect postgres --date-parser string --exclude-pattern "{schema_migrations,schema_functions}" --out-file src/db/types.ts
psql -q "$url" -c "DROP DATABASE kysely_codegen_$$"
