# The server image, in two stages: the build type-checks and compiles TypeScript to dist/
# (`npm run typecheck:build`, then `npm run build`, which only emits); the
# runtime holds production dependencies only and runs `node dist/...` as the unprivileged `node` user.
# Node 22 (LTS): Node 20 left support in April 2026; the code still runs on 20, which the
# development machines have.
FROM node:22-bookworm-slim AS build
WORKDIR /app
ENV CI=true NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY scripts scripts
RUN npm run typecheck:build && npm run build

FROM node:22-bookworm-slim AS runtime
WORKDIR /app
ENV CI=true NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false \
    NODE_ENV=production HOST=0.0.0.0 PORT=3000 \
    NODE_OPTIONS=--max-old-space-size=256
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY migrations migrations
COPY --from=build /app/dist dist
# var/ (the embedded database, demo.json, the mail outbox folder) belongs to the user that runs.
RUN mkdir -p var && chown node:node var
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself is PID 1's only process: `docker stop` (SIGTERM) reaches the server, which drains and exits.
CMD ["node", "--enable-source-maps", "dist/scripts/start.js"]
