# syntax=docker/dockerfile:1
# The Coffer operator image: `docker build -t coffer:dev .`
# Three stages: compile TypeScript, install production dependencies, then copy only the compiled
# output and those dependencies onto a distroless Node 24 runtime (no shell, no package manager)
# that runs as the numeric non-root user 65532.

ARG NODE_IMAGE=node:24-bookworm-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs24-debian12:nonroot

# 1. Build: full dependency tree (TypeScript), then `tsc -p tsconfig.build.json` into dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# 2. Production dependencies only. Install scripts are skipped: no dependency needs one, and
# none should run with network access at build time.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# 3. Runtime: compiled output, the `coffer` launcher, the CRDs (`coffer crds`) and the
# production node_modules. Files stay owned by root and read-only to the process.
FROM ${RUNTIME_IMAGE}
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="coffer" \
      org.opencontainers.image.description="Kubernetes operator for an Infisical-compatible secrets and machine-identity service" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="gcr.io/distroless/nodejs24-debian12:nonroot"
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json package-lock.json ./
COPY bin ./bin
COPY crds ./crds
# The distroless "nonroot" user; numeric so Kubernetes can verify runAsNonRoot.
USER 65532:65532
EXPOSE 8080 8081
# Distroless keeps node at /nodejs/bin/node and has no PATH lookup for it.
# --max-semi-space-size=8 caps V8's young generation at a few tens of MiB (Node 24 lets it grow
# to 128 MiB under a burst of reconciles, and V8 keeps heap pages it once used): measured with
# `npm run bench`, it lowers the operator's resident memory by about 80 MiB at 1,000 resources.
ENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=8", "bin/coffer.js"]
CMD ["operator"]
