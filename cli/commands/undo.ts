/**
 * `svc undo`: puts the current workspace back as the daemon's last snapshot recorded it (or the one `--seq` names),
 * `svc undo --list` shows them. The snapshots live under `$SVC_HOME/snapshots/` (plugins/snapshots), found by the
 * workspace's path, so undo works with `.git` deleted or the project directory gone. It talks to no daemon: the
 * agent's commands cannot run it (the self-protection pack's `self.svc-cli` gate denies any `svc` command line).
 */
import { Command } from 'commander'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { restoreSnapshot, RestoreIncomplete, SnapshotStore, storeDirOf, type SnapshotManifest } from '../../plugins/snapshots/index.ts'
import { CliError, type CliIo } from '../io.ts'
import { svcHome } from '../paths.ts'

/** The workspace a snapshot was taken of: `dir` or its nearest ancestor with a store. */
function snapshottedWorkspace(home: string, dir: string): string | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(storeDirOf(home, at), 'svc-workspace'))) return at
    if (dirname(at) === at) return undefined
  }
}

function describe(m: SnapshotManifest): string {
  const head = m.git ? (m.git.head.startsWith('ref: ') ? m.git.head.slice(5).replace('refs/heads/', '') : m.git.head.slice(0, 12)) : 'no .git'
  const refs = m.git ? Object.keys(m.git.refs).length : 0
  return `seq ${m.seq}  ${new Date(m.at).toISOString()}  tree ${m.tree.slice(0, 12)}  HEAD ${head}, ${refs} ref${refs === 1 ? '' : 's'}`
}

export function makeUndoCommand(io: CliIo): Command {
  return new Command('undo')
    .description("restore the workspace's last snapshot (files, git refs and HEAD, a deleted .git), or the one --seq names")
    .option('--seq <seq>', 'the ledger seq of the snapshot to restore (see --list)')
    .option('--list', "list the workspace's snapshots, oldest first")
    .option('-C, --workspace <dir>', 'the workspace (default: the current directory or the nearest parent with snapshots)')
    .option('--home <dir>', 'svc home (default $SVC_HOME or ~/.svc)')
    .action(async (opts: { seq?: string; list?: boolean; workspace?: string; home?: string }) => {
      if (opts.seq !== undefined && !/^(0|[1-9][0-9]{0,14})$/.test(opts.seq))
        throw new CliError(`invalid_request: --seq must be a ledger seq (a non-negative integer), not "${opts.seq}"`, 2)
      const home = svcHome(io.env, opts.home)
      const from = opts.workspace ?? process.cwd()
      const workspace = snapshottedWorkspace(home, from)
      if (!workspace) throw new CliError(`no_snapshot: svc has no snapshot of ${resolve(from)} or a directory above it (in ${join(home, 'snapshots')})`)
      const store = new SnapshotStore(home)
      const all = await store.list(workspace)
      if (opts.list) {
        io.out(all.length ? [`snapshots of ${workspace}:`, ...all.map(describe)].join('\n') : `no snapshots of ${workspace}`)
        return
      }
      const chosen = opts.seq === undefined ? all.at(-1) : all.find((m) => m.seq === Number(opts.seq))
      if (!chosen) {
        const seqs = all.map((m) => m.seq).join(', ') || 'none'
        throw new CliError(`no_snapshot: ${opts.seq === undefined ? 'no snapshot' : `no snapshot with seq ${opts.seq}`} of ${workspace} (kept: ${seqs})`)
      }
      try {
        const r = await restoreSnapshot(store.dirOf(workspace), chosen)
        const git = r.gitDir === 'recreated' ? '.git recreated' : r.gitDir === 'refs' ? 'refs, HEAD, config and hooks restored' : 'no .git in the snapshot'
        io.out(`restored ${workspace} to snapshot ${r.seq}: ${r.files} files, ${git}`)
        for (const ref of r.removedRefs) io.out(`  removed ${ref}`)
      } catch (err) {
        if (err instanceof RestoreIncomplete) throw new CliError(`restore_incomplete: ${err.message}`)
        throw new CliError(`restore_failed: nothing in ${workspace} was changed: ${(err as Error).message}`)
      }
    })
}
