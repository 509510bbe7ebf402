#!/bin/sh
# The `svc` bin. npm links it in many ways (a global bin symlink into lib/node_modules, `npm link`'s symlinked
# package directory, node_modules/.bin of another project, npx's cache): follow every symlink to the real file
# first, so the package root is where this script really lives.
# Then run cli/main.ts with a Node >= 22.18 (type stripping, node:sqlite), in this order:
#   $SVC_NODE, the package's own Node (the `node` optional dependency: node_modules/.bin/node, or hoisted
#   beside the package when it is itself a dependency), `node` on PATH if new enough; else a clear error.
self=$0
while [ -L "$self" ]; do
  link=$(readlink "$self")
  case $link in
    /*) self=$link ;;
    *) self=$(dirname "$self")/$link ;;
  esac
done
root=$(cd "$(dirname "$self")/.." && pwd -P)

node_ok() { # $1: a node binary; true when it runs and is >= 22.18
  [ "$("$1" -p 'const [a, b] = process.versions.node.split(".").map(Number); a > 22 || (a === 22 && b >= 18) ? "ok" : "old"' 2>/dev/null)" = ok ]
}

if [ -n "$SVC_NODE" ]; then
  node=$SVC_NODE
  node_ok "$node" || { echo "svc: SVC_NODE=$SVC_NODE is not a Node.js >= 22.18" >&2; exit 1; }
elif [ -x "$root/node_modules/.bin/node" ]; then
  node=$root/node_modules/.bin/node
elif [ -x "$root/../.bin/node" ] && [ "$(basename "$(dirname "$root")")" = node_modules ]; then
  node=$root/../.bin/node
else
  node=$(command -v node || true)
  if [ -z "$node" ] || ! node_ok "$node"; then
    found=${node:+$("$node" --version 2>/dev/null) at $node}
    echo "svc: needs Node.js >= 22.18, found ${found:-no node on PATH}." >&2
    echo "  Reinstall svc with its optional dependencies (npm install -g <svc package>, without --omit=optional)," >&2
    echo "  put Node 22.18+ on PATH, or set SVC_NODE=/path/to/node." >&2
    exit 1
  fi
fi
# The daemon lives for days. V8's default young generation (grown to 64 MiB under load) is most of its heap
# for no gain per check, and optimising tree-sitter's WebAssembly (TurboFan) left tens of MiB of compiler memory
# behind in malloc while shell analysis costs the same CPU on baseline code (bench/check prints RSS and CPU per
# check). SVC_DAEMON_SEMI_SPACE_MB is only for measuring the first. glibc gives each of the daemon's ~12 threads
# its own malloc arena, which after a load kept 40-90 MiB of freed memory; two arenas kept 20-40 MiB with the same
# checks/s (bench/check). V8's optimising compilers free tens of MiB of zone memory after a load, which glibc,
# once a large free has raised its thresholds, kept in the heap (RSS after bench/check 183-189 MiB, then the same
# idle); a fixed 128 KiB trim threshold (glibc's starting value) gives it back: 132-144 MiB, no CPU cost seen.
# A MALLOC_ARENA_MAX or MALLOC_TRIM_THRESHOLD_ the user set wins.
# --no-wasm-tier-up alone leaves V8's dynamic tiering on: a grammar's hot lexer was still handed to TurboFan on a
# background thread (seconds of CPU for that one huge function), and every stop waited for that compile to end
# (1-5 s per exit, seen with perf; 0.1 s with both flags). --no-wasm-dynamic-tiering keeps it all on Liftoff.
if [ "$1" = daemon ]; then
  MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} MALLOC_TRIM_THRESHOLD_=${MALLOC_TRIM_THRESHOLD_:-131072} exec "$node" --max-semi-space-size="${SVC_DAEMON_SEMI_SPACE_MB:-4}" --no-wasm-tier-up --no-wasm-dynamic-tiering "$root/cli/bin.js" "$@"
fi
exec "$node" "$root/cli/bin.js" "$@"
