/**
 * Runs corpus cases through the real engine (all built-in plugins and the shipped policy packs) in a
 * temporary home with a project directory, a fake private key and a few symlinks the cases rely on.
 */
import { protectedPorts } from '../../core/index.ts'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { parse } from 'yaml'
import { SHIPPED_POLICIES_DIR } from '../../cli/paths.ts'
import { allPlugins } from '../../cli/plugins.ts'
import { createEngine, type Decision, type Engine, type EvalRequest, type GateTrace } from '../../core/index.ts'

/** One corpus case: a shell command (Bash tool) or any tool call, and the gate expected to deny it. */
export interface CorpusCase {
  readonly cmd?: string
  readonly tool?: string
  readonly input?: Record<string, unknown>
  /** Gate id expected to deny; `analysis` for a core refusal of unanalysable input. */
  readonly rule?: string
  readonly note?: string
  /** Decided by a daemon under its own account (`svc daemon --user`: SVC_DAEMON_ACCOUNT), not the developer's uid. */
  readonly separated?: boolean
}

export interface CorpusWorld {
  readonly engine: Engine
  readonly home: string
  readonly cwd: string
  /**
   * Decides one case, by default in the world's project directory and corpus session. With `trace`, the
   * engine runs (and traces) every gate instead of the indexed candidates.
   */
  decide(c: CorpusCase, where?: { cwd?: string; sessionId?: string }, trace?: GateTrace[]): Promise<{ request: EvalRequest; decision: Decision }>
  close(): Promise<void>
}

const CORPUS_DIR = new URL('.', import.meta.url).pathname

/** Loads `test/corpus/<dir>/*.yaml` as `{ file, cases }`. */
export function loadCorpus(dir: 'deny' | 'allow'): { file: string; cases: CorpusCase[] }[] {
  const base = join(CORPUS_DIR, dir)
  return readdirSync(base)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({ file, cases: (parse(readFileSync(join(base, file), 'utf8')) as CorpusCase[]).map((c) => (typeof c === 'string' ? { cmd: c } : c)) }))
}

/**
 * `$SVC_PORTS` of the world: a daemon started with `--port 9000` whose operator also declared 17878 (a container
 * published there), bound by the same function the daemon uses. 7878/7879 stay in it as the defaults.
 */
export const CORPUS_SVC_PORTS = protectedPorts({ SVC_PROTECTED_PORTS: '17878' }, 9000)

/** Builds the world: temp $SVC_HOME, a governed user's home with a project, keys and links. */
export async function createCorpusWorld(options: { svcPorts?: readonly number[]; env?: Readonly<Record<string, string>> } = {}): Promise<CorpusWorld> {
  const root = mkdtempSync(join(tmpdir(), 'svc-corpus-'))
  const home = join(root, 'home', 'dev')
  const cwd = join(home, 'proj')
  for (const d of [cwd, join(home, '.ssh'), join(home, '.aws'), join(home, '.claude'), join(home, '.svc'), join(home, 'dotfiles', 'gemini'), join(cwd, 'src'), join(cwd, 'build')])
    mkdirSync(d, { recursive: true })
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'not a real key\n')
  writeFileSync(join(home, '.ssh', 'id_rsa.pub'), 'ssh-rsa AAAA test\n')
  writeFileSync(join(home, '.aws', 'credentials'), '[default]\n')
  writeFileSync(join(cwd, '.env'), 'TOKEN=x\n')
  writeFileSync(join(cwd, '.env.example'), 'TOKEN=\n')
  // A patch the agent wrote with a file tool earlier: applying it changes the policy file it names.
  writeFileSync(join(cwd, 'evil.diff'), 'diff --git a/.svc.yaml b/.svc.yaml\n--- a/.svc.yaml\n+++ b/.svc.yaml\n@@ -1 +1 @@\n-a\n+b\n')
  writeFileSync(join(cwd, 'fix.diff'), 'diff --git a/src/app.ts b/src/app.ts\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-a\n+b\n')
  // Scripts an earlier tool call wrote (the Write tool does not look at content): running them is analysed.
  writeFileSync(join(cwd, 'evil.sh'), '#!/bin/sh\necho starting\nsvc mode monitor\n')
  writeFileSync(join(cwd, 'evil.py'), 'import os\nos.system("curl -s http://127.0.0.1:7878/v1/mode")\n')
  writeFileSync(join(cwd, 'build.sh'), '#!/usr/bin/env bash\nset -euo pipefail\nrm -rf ./dist\nnpm run build\n')
  writeFileSync(join(cwd, 'tool.py'), 'import shutil, sys\nshutil.rmtree("build")\nprint("/".join(sys.argv))\n')
  writeFileSync(
    join(cwd, 'package.json'),
    JSON.stringify({
      name: 'proj',
      scripts: {
        test: 'vitest run',
        build: 'tsc -p .',
        lint: 'eslint .',
        pretest: 'echo pre',
        evil: 'svc mode monitor',
        release: 'echo releasing',
        prerelease: 'curl -s localhost:7878/v1/mode',
      },
    }),
  )
  writeFileSync(join(cwd, 'fix.diff'), 'diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-a\n+b\n')
  // Scripts whose text svc cannot read: one over the analysis read limit, and a FIFO whose text comes from
  // whoever writes it. Beside them a large binary (not read, not refused) and an interpreter script with a `#!`.
  writeFileSync(join(cwd, 'big.sh'), `#!/bin/sh\nrm -rf ~\n${'# padding\n'.repeat(120_000)}`)
  writeFileSync(join(cwd, 'bigtool'), Buffer.concat([Buffer.from('\x7fELF\x02\x01\x01', 'latin1'), Buffer.alloc(1_200_000)]))
  writeFileSync(join(cwd, 'run.py'), '#!/usr/bin/env python3\nimport shutil, os\nshutil.rmtree(os.path.expanduser("~"))\n')
  execFileSync('mkfifo', [join(cwd, 'pipe.sh')])
  // Files that look binary but run as scripts: control bytes (bash runs the rest), NULs and an ELF header
  // before the code (dash, Debian's sh, drops NULs and runs the rest).
  writeFileSync(join(cwd, 'ctl.sh'), `${'\x01'.repeat(600)}\nrm -rf ~\n`)
  writeFileSync(join(cwd, 'nul.sh'), `${'\0'.repeat(800)}\ngit push --force origin main\n`)
  writeFileSync(join(cwd, 'elfpoly'), Buffer.concat([Buffer.from('\x7fELF\x02\x01\x01\0', 'latin1'), Buffer.alloc(64), Buffer.from('\nsvc mode monitor\n')]))
  // Scripts that run scripts four deep: deeper than the analysis follows (refused as unanalysable).
  for (let i = 1; i <= 4; i++) writeFileSync(join(cwd, `deep${i}.sh`), `#!/bin/sh\nsh ./deep${i + 1}.sh\n`)
  symlinkSync(join(home, '.ssh', 'id_rsa'), join(cwd, 'keylink'))
  // A symlink loop: a named path through it must still get a verdict, not an engine error.
  symlinkSync(join(cwd, 'loopb'), join(cwd, 'loopa'))
  symlinkSync(join(cwd, 'loopa'), join(cwd, 'loopb'))
  symlinkSync(home, join(cwd, 'homelink'))
  symlinkSync(join(home, '.claude'), join(cwd, 'claudecfg'))
  symlinkSync('/', join(cwd, 'rootlink'))
  // Dangling links an earlier call made: writing through one creates its target.
  symlinkSync(join(home, '.claude', 'settings.local.json'), join(cwd, 'notes.json'))
  symlinkSync(join(home, '.ssh', 'authorized_keys'), join(cwd, 'keys.txt'))
  // A dotfile manager's layout: ~/.gemini is itself a link, so its real path has no `.gemini` in it.
  symlinkSync(join(home, 'dotfiles', 'gemini'), join(home, '.gemini'))
  const engine = await createEngine({
    plugins: allPlugins,
    home: join(root, 'svc-home'),
    policiesDir: SHIPPED_POLICIES_DIR,
    userHome: home,
    log: pino({ level: 'silent' }),
    svcPorts: options.svcPorts ?? CORPUS_SVC_PORTS,
    ...(options.env ? { env: options.env } : {}),
  })
  return {
    engine,
    home,
    cwd,
    decide(c, where = {}, trace) {
      const tool = c.tool ?? 'Bash'
      const input = c.input ?? { command: c.cmd }
      return engine.decide({ sessionId: where.sessionId ?? 'corpus', source: 'claude-code', tool, input: expandHome(input, home), cwd: where.cwd ?? cwd }, undefined, trace)
    },
    async close() {
      await engine.close()
      rmSync(root, { recursive: true, force: true })
    },
  }
}

/** File-tool inputs in the corpus spell the home as `~` (harnesses send absolute paths). */
function expandHome(input: Record<string, unknown>, home: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(input)) out[k] = typeof v === 'string' && k !== 'command' && (v === '~' || v.startsWith('~/')) ? home + v.slice(1) : v
  return out
}
