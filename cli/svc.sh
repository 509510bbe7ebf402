#!/bin/sh
# Runs the svc CLI with the Node the project brings (node_modules/.bin/node, >= 22.18), whatever Node is on PATH.
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(dirname "$here")
node="$root/node_modules/.bin/node"
[ -x "$node" ] || node=node
exec "$node" "$root/cli/main.ts" "$@"
