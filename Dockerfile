FROM node:24-bookworm-slim AS deps
# Production dependencies only. isolated-vm's prebuilt binary is used when one matches; otherwise
# node-gyp compiles it, hence the toolchain (in this stage only).
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM deps AS build
# All dependencies, to bundle the workflows once at build time (workers then skip bundling at start).
WORKDIR /app
RUN npm ci --no-audit --no-fund
COPY . .
RUN node --import tsx scripts/build-workflow-bundle.ts dist/workflow-bundle.js

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3003 SWITCHYARD_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js
# Two malloc arenas instead of up to 8 per core: the worker's native memory (worker/malloc.ts).
ENV MALLOC_ARENA_MAX=2
COPY --from=deps /app/node_modules ./node_modules
# The processes run TypeScript through tsx (`npm run api` / `npm run worker`): its only dependency,
# esbuild, is a production dependency already.
COPY --from=build /app/node_modules/tsx ./node_modules/tsx
COPY --from=build /app/dist/workflow-bundle.js ./dist/workflow-bundle.js
COPY . .
USER node
EXPOSE 3003
# node directly (not npm) so SIGTERM reaches the process that drains; the same as `npm run api`.
CMD ["node", "--no-node-snapshot", "--import", "tsx", "start/api.ts"]
