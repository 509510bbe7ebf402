/**
 * Writes `policies/fixtures/<pack>.yaml` from the corpus (test/corpus): for every built-in gate up to five
 * must-deny cases, and per pack the must-allow everyday calls of its theme, keeping only cases that pass in
 * the plain fixture world (`svc policy test`): corpus cases that need the corpus world's files stay there.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { parse, stringify } from 'yaml'
import { SHIPPED_POLICIES_DIR } from '../cli/paths.ts'
import { fixtureWorld } from '../cli/policy/world.ts'
import { runFixture, type Fixture } from '../plugins/rule-lifecycle/fixtures.ts'

type Case = { cmd?: string; tool?: string; input?: Record<string, unknown>; rule?: string }
const corpus = (dir: string) =>
  readdirSync(join('test/corpus', dir))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => (parse(require_(join('test/corpus', dir, f))) as (Case | string)[]).map((c) => (typeof c === 'string' ? { cmd: c } : c)).map((c) => ({ ...c, file: f })))
function require_(p: string): string {
  return readFileSync(p, 'utf8')
}
const allowByPack: Record<string, string[]> = {
  git: ['01-git.yaml'],
  filesystem: ['03-files.yaml'],
  'remote-exec': ['02-node-build.yaml'],
  secrets: ['04-search-text.yaml'],
  'self-protection': ['07-dev-ports.yaml'],
  analysis: ['06-bash-syntax.yaml'],
  'mcp-pin': ['05-misc.yaml'],
}
const packs = readdirSync(SHIPPED_POLICIES_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => join(SHIPPED_POLICIES_DIR, f))
const world = await fixtureWorld(packs)
const deny = corpus('deny')
const allow = corpus('allow')
const toFixture = (c: Case & { file: string }, expect: Fixture['expect']): Fixture => ({
  name: `corpus ${c.file}`,
  tool: c.tool ?? 'Bash',
  input: c.cmd !== undefined ? { command: c.cmd } : c.input!,
  expect,
  ...(expect !== 'allow' && c.rule ? { rule: c.rule } : {}),
})
for (const pack of packs) {
  const gates = (parse(require_(pack)) as { gates: { id: string; on_hit?: string }[] }).gates
  const out: Fixture[] = []
  for (const { id, on_hit } of gates) {
    let n = 0
    for (const c of deny.filter((d) => d.rule === id)) {
      if (n >= 5) break
      const f = toFixture(c, on_hit === 'monitor' ? 'monitor_alert' : 'deny')
      if ((await runFixture(world.engine, f, world.home, world.cwd)).ok) {
        out.push(f)
        n++
      }
    }
    // MCP pinning needs a server the world has not pinned: any MCP call is one.
    if (n === 0 && id === 'mcp.unpinned-server') out.push({ tool: 'mcp__unpinned__get_issue', input: { number: 1 }, expect: 'deny', rule: id })
    else if (n === 0 && id === 'rce.pipe-to-shell') out.push({ tool: 'Bash', input: { command: 'cat script.txt | sh' }, expect: 'monitor_alert', rule: id })
    else if (n === 0 && id === 'rce.dynamic-exec') out.push({ tool: 'Bash', input: { command: 'eval "$CMD"' }, expect: 'monitor_alert', rule: id })
    else if (n === 0) console.error(`no corpus case for ${id} passes in the fixture world`)
  }
  const name = basename(pack, '.yaml')
  let n = 0
  for (const c of allow.filter((a) => (allowByPack[name] ?? []).includes(a.file))) {
    if (n >= 8) break
    const f = toFixture(c, 'allow')
    if ((await runFixture(world.engine, f, world.home, world.cwd)).ok) {
      out.push(f)
      n++
    }
  }
  const strip = out.map(({ name: _n, ...f }) =>
    f.tool === 'Bash' && typeof f.input.command === 'string' && Object.keys(f.input).length === 1
      ? { command: f.input.command, expect: f.expect, ...(f.rule ? { rule: f.rule } : {}) }
      : f,
  )
  writeFileSync(
    join(SHIPPED_POLICIES_DIR, 'fixtures', `${name}.yaml`),
    `# Fixtures of the \`${name}\` pack (svc policy test): calls it must deny (with the gate) and must allow.\n# Generated from test/corpus by scripts/fixtures-from-corpus.ts; edit freely.\n${stringify({ version: 1, fixtures: strip }, { lineWidth: 0 })}`,
  )
  console.log(`${name}: ${strip.length} fixtures`)
}
await world.close()
