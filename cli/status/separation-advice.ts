/**
 * What `svc doctor` adds about separation (docs/system-daemon.md): with a daemon under its own account, hooks
 * that still call its TCP port (a stand-in could answer there once it stops) are a problem to fix by re-running
 * `svc install`; under the developer's own uid, `--fix` says how to separate it, which needs root and a new
 * account, so doctor never does it itself.
 */
import { readFileSync } from 'node:fs'
import type { Problem, StatusReport } from './collect.ts'

/** Hook files whose shim entries do not call the daemon's socket. */
function tcpHookFiles(report: StatusReport): string[] {
  return report.hooks
    .filter((h) => h.usesShim && h.entries > h.missing)
    .filter((h) => {
      try {
        return !readFileSync(h.file, 'utf8').includes('--socket=')
      } catch {
        return false
      }
    })
    .map((h) => h.file)
}

/** `socket`: the hook socket's path when one is there (a container's daemon, whose port a root proxy holds, has none). */
export function separationProblems(report: StatusReport, socket: string | undefined): Problem[] {
  if (report.separation?.state !== 'separate' || socket === undefined) return []
  const files = tcpHookFiles(report)
  if (files.length === 0) return []
  return [
    {
      what: `the daemon runs as its own account, but hooks in ${files.join(', ')} call its TCP port, where a stand-in could answer once it stops`,
      hint: `run \`svc install\` again (it writes hooks that call the daemon’s Unix socket ${socket})`,
    },
  ]
}

/** The `svc doctor --fix` line for a daemon under the developer's own uid: how to separate it (not done by doctor). */
export function separationHowTo(report: StatusReport): string | undefined {
  if (report.separation?.state !== 'same-user') return undefined
  return [
    'not fixed: separation. The daemon runs as you, so code your agents run could read its keys or stop it. Separating it needs root and a new account, which doctor does not do:',
    '  1. `sudo svc service install --system --for $USER` (creates the account, hands over the keys, installs a hardened system service; where no service manager runs it prints the one command to start it as root)',
    '  2. stop your own daemon (`svc service uninstall`, or end `svc daemon`), then `svc install` again: the hooks then call the daemon’s Unix socket',
    '  3. `svc status` says "separation: the daemon runs as svc"; docs/system-daemon.md has the details',
  ].join('\n')
}
