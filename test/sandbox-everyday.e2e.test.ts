/**
 * The sandbox's own false positives (issue 27, part 5). A sample of the everyday corpus (test/harm/everyday.ts, each
 * command traced to its corpus file) runs in a working scratch project (git history and a local remote, Node with a
 * lockfile and node_modules, Python, make, SQLite; the harm suite's canaries in every credential), inside the harm
 * suite's outer jail (no network, only the world writable): once bare, and once inside sandbox-runtime with exactly
 * the settings `svc install --harness claude-code --sandbox` writes. What breaks only inside the sandbox must be the
 * list docs/threat-model.md gives with its reasons (between the `sandbox-false-positives` markers); what breaks bare
 * is a bad sample and fails the suite. The table is printed.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { srtCli, srtMissing, srtSettingsFromClaude } from '../harnesses/claude-code/probe.ts'
import { valueAt } from '../plugins/installer/jsonc-edit.ts'
import { buildEverydayWorld, EVERYDAY } from './harm/everyday.ts'
import { runInJail } from './harm/jail.ts'
import type { Mode, RunResult } from './harm/runner.ts'
import { CANARY_ENV } from './harm/world.ts'

const ROOT = new URL('..', import.meta.url).pathname
const NODE = process.execPath
const missing = srtCli() ? srtMissing({ PATH: process.env.PATH }) : ['@anthropic-ai/sandbox-runtime']
const skip = missing.length > 0 ? `(needs ${missing.join(', ')}: apt-get install bubblewrap socat ripgrep)` : ''
/** sandbox-runtime hands commands TMPDIR=/tmp/claude (writable inside it), as Claude Code does. */
const TMP = '/tmp/claude'

/** Samples that broke inside the sandbox until the generated settings changed: they must keep working there. */
const FIXED: Record<string, string> = {
  rg: 'fixed: absent sitecustomize.py/usercustomize.py/group-policy.yaml are no longer denied at the project root (rootIfPresent), so no unreadable placeholders',
  'npm-ci-tmp-cache': 'the documented workaround for `npm ci`: a cache in $TMPDIR',
}

/** The documented false positives: `| \`id\` | command | why |` rows between the markers in docs/threat-model.md. */
function documented(): Map<string, string> {
  const doc = readFileSync(join(ROOT, 'docs/threat-model.md'), 'utf8')
  const block = /<!-- sandbox-false-positives:start -->([\s\S]*?)<!-- sandbox-false-positives:end -->/.exec(doc)?.[1] ?? ''
  const rows = new Map<string, string>()
  for (const m of block.matchAll(/^\| `([a-z0-9-]+)` \| .*? \| (.+) \|$/gm)) rows.set(m[1]!, m[2]!)
  return rows
}

let dir: string
const runs = new Map<Mode, Map<string, RunResult>>()
const ok = (mode: Mode, id: string) => runs.get(mode)?.get(id)?.status === 0
const why = (r: RunResult | undefined) => (r ? `exit ${r.status}: ${(r.tail ?? '').trim().split('\n').slice(-2).join(' / ')}` : 'not run')

describe.skipIf(skip !== '')(`everyday commands inside Claude Code's sandbox as svc installs it ${skip}`, () => {
  beforeAll(async () => {
    dir = mkdtempSync('/var/tmp/svc-everyday-')
    chmodSync(dir, 0o755)
    const world = buildEverydayWorld(join(dir, 'w'))
    // Into the world's home only (HOME and SVC_HOME say where); no daemon is needed to write the settings.
    execFileSync(
      NODE,
      ['cli/bin.js', 'install', '--harness', 'claude-code', '--sandbox', '--repo', world.proj, '--allow-domains', 'detected', '--yes', '--url', 'http://127.0.0.1:7878'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: world.home, SVC_HOME: world.svcHome, SVC_URL: 'http://127.0.0.1:7878' },
        stdio: 'pipe',
      },
    )
    const block = valueAt(readFileSync(join(world.home, '.claude', 'settings.json'), 'utf8'), ['sandbox']) as Record<string, unknown>
    const srt = srtSettingsFromClaude(block, { home: world.home, settingsDir: join(world.home, '.claude'), cwd: world.proj, tmp: TMP })
    cpSync(world.root, join(dir, 'pristine'), { recursive: true, verbatimSymlinks: true })
    const attacks = EVERYDAY.map((s) => ({ id: s.id, steps: [{ cmd: s.cmd }], allowed: [true] }))
    const job = (mode: Mode) => ({
      root: world.root,
      pristine: join(dir, 'pristine'),
      home: world.home,
      proj: world.proj,
      env: { PATH: world.path, HOME: world.home, TMPDIR: TMP, LANG: 'C.UTF-8', [CANARY_ENV]: world.envToken },
      srt,
      mode,
      attacks,
      needles: [world.hookKey],
      timeoutMs: 20_000,
    })
    const [bare, boxed] = await Promise.all([
      runInJail({ dir, name: 'bare', job: job('bare'), root: ROOT, node: NODE }),
      runInJail({ dir, name: 'sandbox', job: job('sandbox'), root: ROOT, node: NODE }),
    ])
    runs.set('bare', new Map(bare.map((r) => [r.id, r])))
    runs.set('sandbox', new Map(boxed.map((r) => [r.id, r])))
    if (process.env.SVC_EVERYDAY_RESULTS) writeFileSync(process.env.SVC_EVERYDAY_RESULTS, JSON.stringify({ bare, sandbox: boxed }, null, 1))
  }, 300_000)
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('samples the everyday corpus: every command (or the line it adapts) is in the corpus file named', () => {
    expect(EVERYDAY.length).toBeGreaterThanOrEqual(40)
    expect(new Set(EVERYDAY.map((s) => s.id)).size).toBe(EVERYDAY.length)
    const corpus = new Map<string, Set<string>>()
    const lines = (file: string) => {
      if (!corpus.has(file)) corpus.set(file, new Set((parse(readFileSync(join(ROOT, 'test/corpus/everyday', file), 'utf8')) as { cmd: string }[]).map((c) => c.cmd)))
      return corpus.get(file)!
    }
    expect(EVERYDAY.filter((s) => !lines(s.corpus).has(s.original ?? s.cmd)).map((s) => `${s.id}: ${s.original ?? s.cmd}`)).toEqual([])
  })

  it('prints the table; every sample works in the bare jail (a sample that does not is a bad sample)', () => {
    const docs = documented()
    const lines = ['| command | from | bare | sandbox | fixed / documented |', '|---|---|---|---|---|']
    for (const s of EVERYDAY) {
      const [b, x] = [ok('bare', s.id), ok('sandbox', s.id)]
      const note = docs.has(s.id) ? `documented: ${docs.get(s.id)}` : (FIXED[s.id] ?? '')
      lines.push(
        `| \`${s.cmd}\` | ${s.corpus} | ${b ? 'works' : `FAILS (${why(runs.get('bare')?.get(s.id))})`} | ${x ? 'works' : `fails (${why(runs.get('sandbox')?.get(s.id))})`} | ${note} |`,
      )
    }
    const broken = EVERYDAY.filter((s) => !ok('sandbox', s.id)).length
    console.log(`${lines.join('\n')}\n\n${EVERYDAY.length} everyday commands; ${broken} break inside the sandbox\n`)
    expect(EVERYDAY.filter((s) => !ok('bare', s.id)).map((s) => `${s.id}: ${why(runs.get('bare')?.get(s.id))}`)).toEqual([])
  })

  it('what breaks only inside the sandbox is exactly the documented list (docs/threat-model.md)', () => {
    const broken = EVERYDAY.filter((s) => ok('bare', s.id) && !ok('sandbox', s.id)).map((s) => s.id)
    expect(broken.sort()).toEqual([...documented().keys()].sort())
    for (const id of Object.keys(FIXED)) expect(ok('sandbox', id), `${id} works inside the sandbox`).toBe(true)
    // The docs' figures are this sample's.
    const doc = readFileSync(join(ROOT, 'docs/threat-model.md'), 'utf8')
    expect(doc).toContain(`${EVERYDAY.length} everyday commands`)
    expect(doc).toContain(`${EVERYDAY.length - broken.length} also run inside`)
    // A sandbox that failed to start would break everything: most of the sample must run inside it.
    expect(EVERYDAY.length - broken.length).toBeGreaterThan(EVERYDAY.length / 2)
    expect([...(runs.get('sandbox')?.values() ?? [])].filter((r) => /^bwrap: /m.test(r.output)).map((r) => `${r.id}: ${r.output}`)).toEqual([])
  })
})
