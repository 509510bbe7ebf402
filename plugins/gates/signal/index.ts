/**
 * `signal`: matches structural findings of the shell analysis, e.g. `download_exec` (downloaded code
 * executed), `decode_exec`, `pipe_to_shell`, `inline_code`, `dynamic_program`, `parse_error`.
 */
import { defineGateKind } from '../../../core/index.ts'

/** Signals the shell analysis emits; a policy naming anything else is a load error (a typo would never match). */
export const SIGNALS = [
  'decode_exec',
  'download_exec',
  'dynamic_exec',
  'dynamic_program',
  'exec_substitution',
  'inline_code',
  'nested_shell',
  'parse_error',
  'pipe_to_interpreter',
  'pipe_to_shell',
  'unanalysable',
  // A script on disk that runs (`bash x.sh`, `./x.sh`, a hook or recipe) but could not be analysed.
  'unanalysable_script',
  // A .env loaded into an environment that is then printed.
  'env_dump',
  // What svc could not compute: a destructive operation's target, a loopback port, a code call's arguments, keys typed.
  'unknown_target',
  'unknown_port',
  'unknown_code',
  'unknown_keys',
  // A patch applied from text svc cannot read (a download, a decoder, a missing or oversized file).
  'unknown_patch',
  // git pointed at code svc cannot see (core.hooksPath, include.path, --config-env).
  'opaque_config',
  // A recursive read (grep -r, tar c, cp -r, find -exec) of the home directory or above: every secret in it.
  'home_tree_read',
  // A container that gets the host itself: privileged, the host's PID namespace, the Docker socket.
  'container_escape',
  // An environment variable that makes programs load code or a config from a place svc does not see (LD_PRELOAD, PYTHONPATH, TAR_OPTIONS).
  'code_variable',
  // A tree copied onto the working directory itself (cp -a x/. ., rsync -a x/ .): its hook and policy files may be in it.
  'tree_into_project',
  // A recursive delete of the .git of the repository the command runs in.
  'own_repository',
  // A nested harness run whose config (and so its hooks) was moved or cleared: HOME=, CLAUDE_CONFIG_DIR=, CODEX_HOME=, env -i.
  'harness_config_moved',
  // Every process, or a pattern that matches the daemon's process (kill -9 -1, pkill -f 'node.*daemon', pgrep node).
  'daemon_pattern',
] as const

const item = { enum: SIGNALS }

export default defineGateKind<string | string[]>({
  kind: 'signal',
  description: `Matches when the shell analysis reported any of the given signals (${SIGNALS.join(', ')}).`,
  schema: { oneOf: [item, { type: 'array', minItems: 1, items: item }] },
  compile(value) {
    const wanted = Array.isArray(value) ? value : [value]
    return function signalMatches(request) {
      const hit = request.shell?.signals.find((s) => wanted.includes(s))
      return hit === undefined ? undefined : `signal ${hit} in \`${request.shell?.raw.slice(0, 160)}\``
    }
  },
  index: (value) => ({ facets: (Array.isArray(value) ? value : [value]).map((s) => `signal:${s}`) }),
})
