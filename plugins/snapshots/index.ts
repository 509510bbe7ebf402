/**
 * Workspace snapshots before risky calls (issue 27, part 3): what neither the gate nor the sandbox stops inside the
 * workspace is recoverable with `svc undo`. A preEvaluate tap, after shell analysis, asks `needs.ts` whether the
 * call could delete, move or rewrite tracked work (or could not be analysed); if so the daemon records a snapshot
 * of that workspace in `$SVC_HOME/snapshots/` (store.ts) before deciding, and ledgers it as a `control` leaf
 * `snapshot_taken` whose seq names it. Only the daemon takes snapshots (its service hands the tap the engine to
 * ledger with); one-shot engines (`svc explain`, `svc scan`) never do. `SVC_SNAPSHOTS=off` turns them off,
 * `SVC_SNAPSHOT_KEEP` sets how many are kept per workspace. A failed snapshot is logged and ledgered, never fatal:
 * the call is decided as it would be without one.
 * @module
 */
import { STAGE, type Engine, type EnginePlugin, type EvalRequest } from '../../core/index.ts'
import { service } from '../../daemon/index.ts'
import { snapshotTarget } from './needs.ts'
import { DEFAULT_KEEP, SnapshotStore } from './store.ts'

export { storeDirOf, SnapshotStore, type SnapshotManifest } from './store.ts'
export { restoreSnapshot, RestoreIncomplete } from './restore.ts'

const NAME = 'feature:snapshots'

const plugin: EnginePlugin = {
  name: NAME,
  apply(host) {
    if (/^(off|0|false|no)$/i.test(host.env.SVC_SNAPSHOTS ?? '')) return
    const keep = host.env.SVC_SNAPSHOT_KEEP === undefined ? DEFAULT_KEEP : Number(host.env.SVC_SNAPSHOT_KEEP)
    // A bad SVC_SNAPSHOT_KEEP stops the daemon at start (the service's throw), naming the variable.
    let engine: Engine | undefined
    let store: SnapshotStore | undefined
    // One snapshot at a time per workspace (they share the store's private index).
    const queues = new Map<string, Promise<unknown>>()
    const collecting = new Set<string>()
    host.bring(
      service('snapshots', (ctx) => {
        store = new SnapshotStore(ctx.engine.home, keep)
        engine = ctx.engine
        return { stop: () => void (engine = undefined) }
      }),
    )
    const take = async (workspace: string, request: EvalRequest): Promise<void> => {
      if (!engine || !store) return
      try {
        const capture = await store.capture(workspace)
        const facts = {
          workspace,
          tree: capture.tree,
          ...(capture.git ? { refs: capture.git.refsKey, head: capture.git.head } : {}),
          tool: request.tool,
          ...(request.toolUseId ? { tool_use_id: request.toolUseId } : {}),
          ms: String(Math.round(capture.ms)),
          // unchanged: the last snapshot's stat fingerprint held, no git process; files: only edited files read again.
          read: capture.path,
        }
        const entry = await engine.recordEvent('snapshot_taken', facts, `workspace snapshot before a ${request.tool} call that may change tracked work (svc undo --seq <this seq>)`)
        await store.commit(capture, entry.seq, entry.at)
      } catch (err) {
        host.log.error({ err, workspace }, 'workspace snapshot failed; the call is decided without one')
      }
    }
    host.hooks.preEvaluate.tapPromise({ name: NAME, stage: STAGE.LAST }, async (request) => {
      // Only a minted session's call (`ses_…`) is about to run: a false-positive replay, a validation, the fixtures
      // and the warm-up decide inside the daemon too, under pseudo-sessions, and must leave no trace.
      if (!engine || !request.sessionId.startsWith('ses_')) return request
      const workspace = snapshotTarget(request)
      if (!workspace) return request
      const next = (queues.get(workspace) ?? Promise.resolve()).then(() => take(workspace, request))
      // The fingerprint and the bound are kept after the answer, still in the workspace's queue; git's collection
      // runs beside it.
      const pruned = next
        // A turn of the event loop first, so the call's decision goes on before the fingerprint's lstat pass.
        .then(() => new Promise((resolve) => setImmediate(resolve)))
        .then(async () => {
          await store?.settle(workspace) // the stat fingerprint for the next snapshot
          return store?.prune(workspace)
        })
        .then(
          (due) => {
            if (!due || collecting.has(workspace) || !store) return
            collecting.add(workspace)
            store
              .collect(workspace)
              .catch((err: Error) => host.log.error({ err, workspace }, 'collecting old workspace snapshots failed'))
              .finally(() => collecting.delete(workspace))
          },
          (err: Error) => host.log.error({ err, workspace }, 'pruning old workspace snapshots failed'),
        )
      queues.set(workspace, pruned)
      await next
      void pruned.then(() => queues.get(workspace) === pruned && queues.delete(workspace))
      return request
    })
  },
}
export default plugin
