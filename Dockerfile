# syntax=docker/dockerfile:1
# One image for the api, the worker and the simulator; the command picks which:
#   node dist/api.mjs | node dist/worker.mjs | node dist/simulator.mjs | node dist/admin.mjs ... | node dist/batch.mjs ...
# Debian slim, not Alpine: the speech encoder (node-av's prebuilt FFmpeg, @relay/audio) is linked
# against glibc; no musl build exists.
ARG NODE_IMAGE=node:26-slim

# The manifests of what the image runs (api and admin CLI, worker, simulator, batch CLI) and of
# the workspace packages they use: npm ci installs the runtime dependencies of the workspaces
# whose manifests it finds, so the image gets no test package and not npm start's launcher and
# embedded store (tests/e2e/src/docker-install.test.ts reads these stages).
FROM ${NODE_IMAGE} AS runtime-manifests
WORKDIR /src
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/worker/package.json apps/worker/
COPY apps/simulator/package.json apps/simulator/
COPY apps/cli/package.json apps/cli/
COPY packages/core/package.json packages/core/
COPY packages/jobs/package.json packages/jobs/
COPY packages/billing/package.json packages/billing/
COPY packages/scheduler/package.json packages/scheduler/
COPY packages/life/package.json packages/life/
COPY packages/batch/package.json packages/batch/
COPY packages/channels/package.json packages/channels/
COPY packages/audio/package.json packages/audio/

# Runtime dependencies only. bull-board's valibot names typescript as a peer: nothing needs it to run.
FROM runtime-manifests AS runtime-deps
# node-av's optional ffmpeg command-line download is not used (the relay links FFmpeg's libraries)
RUN SKIP_FFMPEG=true npm ci --omit=dev --omit=peer --no-audit --no-fund \
 && rm -rf node_modules/typescript node_modules/@typescript \
 && npm cache clean --force

# Every other workspace manifest, so the build's npm ci sees the whole workspace the lockfile describes.
FROM runtime-manifests AS manifests
COPY apps/embedded/package.json apps/embedded/
COPY apps/console/package.json apps/console/
COPY packages/local/package.json packages/local/
COPY packages/testkit/package.json packages/testkit/
COPY tests/clients/package.json tests/clients/
COPY tests/e2e/package.json tests/e2e/
COPY tests/faults/package.json tests/faults/
COPY tests/console/package.json tests/console/
COPY bench/package.json bench/
COPY tools/lint/package.json tools/lint/

# The bundles: workspace code inlined from its TypeScript sources by esbuild; the console's
# static files into dist/console (served by the api under /console).
FROM manifests AS build
RUN SKIP_FFMPEG=true npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    METRICS_HOST=0.0.0.0
WORKDIR /app
COPY --from=runtime-deps --chown=root:root /src/node_modules ./node_modules
COPY --from=build --chown=root:root /src/dist ./dist
USER node
EXPOSE 8080 9464 4010
CMD ["node", "--enable-source-maps", "--max-semi-space-size=8", "dist/api.mjs"]
