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
# dist/cli/bin.js and main.js, with every module they load, become a bundle
# in bundle/dist/cli (esbuild, a dev dependency whose binary is an npm
# package): bin.js, main.js and chunks that each `await import()` loads when it
# runs. A start reads a few files, not thousands, and the image needs no
# node_modules: the bundle holds every package's code, client-node's included.
COPY scripts/image/bundle.mjs ./scripts/image/bundle.mjs
RUN node scripts/image/bundle.mjs dist bundle/dist

# Runtime stage: the bundle, package.json (the version) and what the code reads
# by path at run time: the protos, and the CRDs manifest mode checks objects
# against. No node_modules (issue 35: they were 108 MB of a 421 MB image).
# Runs as a numeric non-root user so runAsNonRoot can verify it.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json ./
COPY --from=build /src/bundle/dist ./dist
COPY proto ./proto
COPY crds ./crds
# Sizes V8's heap from the container's memory limit, then runs dist/cli/bin.js.
COPY scripts/image/entrypoint.sh /app/bin/entrypoint.sh
# Node's module compile cache, filled here, where the files stay (the cache is
# keyed by their paths), and as the user that runs the image (Node keeps a
# directory per uid): a container's start then reads V8's code instead of
# compiling it. `--version` compiles bin.js and main.js; every chunk is then
# imported once (defining its modules runs none of them), so a command or a
# mode loaded later finds its code there too. The root file system is
# read-only in a pod: Node reads the cache and skips writing to it.
# (--expose-gc as the entrypoint runs it.)
ENV NODE_COMPILE_CACHE=/app/compile-cache
RUN mkdir /app/compile-cache && chown 1000:1000 /app/compile-cache
USER 1000:1000
RUN NODE_OPTIONS=--expose-gc node /app/dist/cli/bin.js --version >/dev/null && \
  NODE_OPTIONS=--expose-gc node --input-type=module -e \
  "import { readdirSync } from 'node:fs'; for (const f of readdirSync('/app/dist/cli')) if (f.startsWith('bundle-')) await import('/app/dist/cli/' + f);"
# The process works in /, as spire-controller-manager's image does: the helm
# chart mounts the config at /controller-manager-config.yaml and passes
# --config=controller-manager-config.yaml, a path relative to /. Our files stay
# in /app, named by absolute paths.
WORKDIR /
USER 1000:1000
ENTRYPOINT ["/app/bin/entrypoint.sh"]
CMD ["--help"]
