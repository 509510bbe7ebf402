# svc daemon image: official Node 24 slim base, non-root, state in the /data volume.
#   docker build --build-arg SVC_COMMIT="$(git rev-parse HEAD)" -t svc .
#   docker run -d --name svc -p 127.0.0.1:7878:7878 -p 127.0.0.1:7879:7879 -v svc-data:/data \
#     -v "$HOME:$HOME:ro" -e SVC_USER_HOME="$HOME" -e SVC_TRUSTED_HOST_KEYS="$(svc signer export-trust)" svc
# The home mount lets the analysis read the scripts the agents' commands run (docs/operations.md "Container").
# SVC_TRUSTED_HOST_KEYS hands the daemon the host's public keys, so the host's `svc session create --tier …` or
# `svc agent --tier …` mints sessions on it at once (the long-lived keys themselves never enter the image).
FROM node:24-slim

# Two malloc arenas and a fixed trim threshold: the daemon's threads each kept tens of MiB of freed memory in their
# own, and the heap kept what V8's compilers freed after a load (cli/svc.sh says more).
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    MALLOC_TRIM_THRESHOLD_=131072 \
    SVC_HOME=/data \
    SVC_IN_CONTAINER=1

WORKDIR /opt/svc
COPY package.json package-lock.json ./
# Production dependencies only, without the optional `node` package: the image's own Node 24 runs the
# TypeScript sources by type stripping.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force

COPY core ./core
COPY daemon ./daemon
COPY ledger-verify ./ledger-verify
COPY redaction ./redaction
COPY harness-contract ./harness-contract
COPY hook-key ./hook-key
COPY plugins ./plugins
COPY harnesses ./harnesses
COPY guardrail-providers ./guardrail-providers
COPY cli ./cli
COPY policies ./policies
COPY openapi.yaml README.md LICENSE ./
# `svc --version` names the commit: pass it at build time (no .git in the image), else "unknown".
ARG SVC_COMMIT=""
RUN if [ -n "$SVC_COMMIT" ]; then printf '{"commit":"%s"}\n' "$SVC_COMMIT" > cli/build-info.json; fi

RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
# 7878: API. 7879: web dashboard (README "Container"). Publish both on the host's loopback only.
EXPOSE 7878 7879

HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:7878/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
# The daemon flags cli/svc.sh gives it (see there: RSS, no cost per check).
CMD ["node", "--max-semi-space-size=4", "--no-wasm-tier-up", "--no-wasm-dynamic-tiering", "cli/bin.js", "daemon", "--host", "0.0.0.0"]
