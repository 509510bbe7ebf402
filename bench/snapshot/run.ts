/**
 * bench/snapshot: what the workspace snapshot adds to the check path (plugins/snapshots) — capture (the stat
 * fingerprint of the last snapshot checked with lstat and no git process; when it differs, the work tree through the
 * store's private index, write-tree and a new fingerprint; the `.git` state, a fetch when refs moved) and commit (the
 * manifest; the bound is kept after the answer, untimed) — on a repository of BENCH_FILES files (default 3000, in
 * nested directories, with history) built in a temp dir. Cases: the first snapshot (cold, everything hashed), an
 * unchanged tree, refs changed with the tree untouched (the fetch), one file edited, a new untracked file; each
 * line says how many snapshots took each path (unchanged: stats only; files: the changed files alone; full). The ledger append of the `snapshot_taken` leaf is not
 * included (bench:ledger measures appends).
 * Run: npm run bench:snapshot   (BENCH_N snapshots per case, default 30; BENCH_FILES files)
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SnapshotStore } from '../../plugins/snapshots/store.ts'
import { mib, summarise } from '../lib/stats.ts'

const N = Number(process.env.BENCH_N ?? 30)
const FILES = Number(process.env.BENCH_FILES ?? 3000)
const root = mkdtempSync(join(tmpdir(), 'bench-snapshot-'))
const ws = join(root, 'proj')
const env = { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' }
const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, env, stdio: 'pipe' })

const fileOf = (i: number) => join(ws, 'src', `m${i % 40}`, `d${i % 7}`, `f${i}.ts`)

function build(): void {
  for (let i = 0; i < FILES; i++) {
    mkdirSync(join(ws, 'src', `m${i % 40}`, `d${i % 7}`), { recursive: true })
    writeFileSync(fileOf(i), `// file ${i}\nexport const v${i} = ${i}\n${'x'.repeat(200 + (i % 1800))}\n`)
  }
  mkdirSync(join(ws, 'node_modules', 'dep'), { recursive: true })
  writeFileSync(join(ws, 'node_modules', 'dep', 'index.js'), 'module.exports = 1\n')
  writeFileSync(join(ws, '.gitignore'), 'node_modules/\n')
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-qm', 'initial')
  for (let c = 0; c < 5; c++) {
    writeFileSync(join(ws, 'src', `history${c}.ts`), `${c}\n`)
    git('add', '-A')
    git('commit', '-qm', `c${c}`)
  }
}

function formatMs(label: string, samplesNs: number[]): string {
  const s = summarise(samplesNs)
  const f = (us: number) => `${(us / 1000).toFixed(1)}ms`
  return `${label.padEnd(38)} n=${s.n}  p50=${f(s.p50)}  p99=${f(s.p99)}  max=${f(s.max)}`
}

function du(path: string): number {
  const st = statSync(path)
  return st.isDirectory() ? readdirSync(path).reduce((s, n) => s + du(join(path, n)), 0) : st.size
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function main(): Promise<void> {
  build()
  const store = new SnapshotStore(join(root, 'svc'), 30)
  let seq = 0
  let paths: Record<string, number> = {}
  const once = async (): Promise<number> => {
    const t0 = process.hrtime.bigint()
    const capture = await store.capture(ws)
    await store.commit(capture, ++seq)
    const ns = Number(process.hrtime.bigint() - t0)
    paths[capture.path] = (paths[capture.path] ?? 0) + 1
    // After the answer in the daemon: not on the check path.
    await store.settle(ws)
    await store.prune(ws)
    return ns
  }
  const run = async (label: string, n: number, change?: (i: number) => void): Promise<void> => {
    const samples: number[] = []
    paths = {}
    for (let i = 0; i < n; i++) {
      change?.(i)
      samples.push(await once())
    }
    console.log(
      `${formatMs(label, samples)}  ${Object.entries(paths)
        .map(([p, k]) => `${p}=${k}`)
        .join(' ')}`,
    )
  }
  console.log(`snapshot cost on the check path: ${FILES} files, ${N} snapshots per case (capture + commit, no ledger append)`)
  await run('first snapshot (cold)', 1)
  // Files written within the racy window (2 s) before a snapshot are not trusted by its fingerprint.
  await sleep(2100)
  await run('warm-up (fingerprint taken)', 1)
  await run('unchanged tree', N)
  await run('refs changed (an empty commit)', Math.min(N, 10), (i) => git('commit', '-q', '--allow-empty', '-m', `e${i}`))
  await run('changed tree (one file edited)', N, (i) => writeFileSync(fileOf((i * 7) % FILES), `edited ${i}\n`))
  await run('changed tree (a new untracked file)', N, (i) => writeFileSync(join(ws, 'src', 'm2', `untracked${i}.ts`), `${i}\n`))
  console.log(`store: ${mib(du(store.dirOf(ws)))} for ${(await store.list(ws)).length} kept snapshots; the repository's .git: ${mib(du(join(ws, '.git')))}`)
}

try {
  await main()
} finally {
  rmSync(root, { recursive: true, force: true })
}
