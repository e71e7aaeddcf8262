# syntax=docker/dockerfile:1

# Build stage: compile TypeScript with the image's own Node 24. Install
# scripts are skipped: the `node` dev dependency only pins Node for npm
# scripts on older hosts, and nothing else needs one to build.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# tsc copies no .hbs: the report templates are copied beside the compiled code.
COPY scripts/copy-report-templates.mjs ./scripts/
RUN node node_modules/typescript/bin/tsc -p tsconfig.build.json && node scripts/copy-report-templates.mjs
# dist/cli/main.js becomes one file with every module it loads (esbuild, a dev
# dependency whose binary is an npm package): a start reads one file, not
# thousands, and leaves out code it never reaches.
COPY scripts/image/bundle.mjs ./scripts/image/bundle.mjs
RUN node scripts/image/bundle.mjs dist

# Runtime stage: production dependencies, the compiled code, and the protos
# loaded at runtime. Runs as a numeric non-root user so runAsNonRoot can verify it.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist ./dist
COPY proto ./proto
COPY crds ./crds
# Sizes V8's heap from the container's memory limit, then runs dist/cli/bin.js.
COPY scripts/image/entrypoint.sh /app/bin/entrypoint.sh
# Node's module compile cache, filled here by running the CLI once (bin.js and
# the bundle are all it loads), where the files stay (the cache is keyed by
# their paths), and as the user that runs the image (Node keeps a directory per
# uid): a container's start then reads V8's code instead of compiling it. The
# root file system is read-only in a pod: Node reads the cache and skips
# writing to it. (--expose-gc as the entrypoint runs it.)
ENV NODE_COMPILE_CACHE=/app/compile-cache
RUN mkdir /app/compile-cache && chown 1000:1000 /app/compile-cache
USER 1000:1000
RUN NODE_OPTIONS=--expose-gc node /app/dist/cli/bin.js --version >/dev/null
# The process works in /, as spire-controller-manager's image does: the helm
# chart mounts the config at /controller-manager-config.yaml and passes
# --config=controller-manager-config.yaml, a path relative to /. Our files stay
# in /app, named by absolute paths.
WORKDIR /
USER 1000:1000
ENTRYPOINT ["/app/bin/entrypoint.sh"]
CMD ["--help"]
