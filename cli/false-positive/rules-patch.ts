/**
 * The upstream draft of a registry rule's fix (SPEC "False-positive rules" 6): the updated `rule.yaml` (the
 * gate's `when` replaced by the validated replacement's), a README note, a fixture proving the false positive
 * is allowed, one proving the malicious pattern is still blocked, and the redacted event report. It never
 * commits; a missing or dirty checkout is refused; with no checkout a portable report bundle is written.
 */
import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { isMap, isSeq, parse, parseDocument, stringify } from 'yaml'
import { loadRuleAuthoring } from '../../plugins/rule-lifecycle/index.ts'
import { CliError } from '../io.ts'
import { readCaseDir } from './case-dir.ts'

function git(repo: string, args: string[]): string {
  try {
    return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  } catch {
    throw new CliError(`${repo} is not a git checkout of the rules registry`)
  }
}

/** Writes the draft; returns the lines to print. */
export async function writeRulesPatch(caseDir: string, rulesRepo: string | undefined): Promise<string[]> {
  const { parseFixtures } = await loadRuleAuthoring()
  const c = readCaseDir(caseDir)
  const source = c.bundle.matched_gate.source
  if (!source.startsWith('registry:'))
    throw new CliError(`gate ${c.bundle.matched_gate.id} comes from ${source}, not from a rules registry (registry:<id>): there is nothing upstream to patch`)
  const ruleId = source.slice('registry:'.length)
  let folder: string
  if (rulesRepo === undefined) {
    folder = join(caseDir, 'upstream-report', ruleId)
  } else {
    if (!existsSync(rulesRepo)) throw new CliError(`rules repo checkout ${rulesRepo} does not exist`)
    git(rulesRepo, ['rev-parse', '--is-inside-work-tree'])
    if (git(rulesRepo, ['status', '--porcelain']).trim() !== '') throw new CliError(`rules repo checkout ${rulesRepo} has uncommitted changes; commit or stash them first`)
    folder = [join(rulesRepo, ruleId), join(rulesRepo, 'rules', ruleId)].find((d) => existsSync(d)) ?? join(rulesRepo, ruleId)
  }
  const installed = c.bundle.matched_gate.file.replace(/^~(?=\/)/, homedir())
  const base = [join(folder, 'rule.yaml'), installed].find((p) => existsSync(p))
  if (!base) throw new CliError(`cannot find rule.yaml of ${ruleId} (looked in ${folder} and ${installed})`)
  const replacement = parse(c.draft) as { when?: unknown }
  if (!replacement?.when) throw new CliError(`${caseDir}/replacement.yaml has no \`when\` block`)
  const doc = parseDocument(readFileSync(base, 'utf8'))
  const gates = doc.get('gates', true)
  const gate = isSeq(gates) ? gates.items.find((g) => isMap(g) && g.get('id') === c.bundle.matched_gate.id) : undefined
  if (!gate || !isMap(gate)) throw new CliError(`${base} has no gate ${c.bundle.matched_gate.id}`)
  gate.set('when', doc.createNode(replacement.when))
  mkdirSync(join(folder, 'reports'), { recursive: true })
  writeFileSync(join(folder, 'rule.yaml'), doc.toString({ lineWidth: 0 }))
  const seq = c.bundle.event.seq
  const note = `\n## False positive at seq ${seq}\n\n\`${c.bundle.matched_gate.id}\` blocked a ${c.bundle.event.tool} call it should not have${c.bundle.input.command ? ` (\`${c.bundle.input.command}\`, redacted)` : ''}. Its \`when\` now excludes that call; fixtures prove the call is allowed and the malicious pattern is still blocked. Report: \`reports/fp-${seq}.json\`.\n`
  appendFileSync(join(folder, 'README.md'), note)
  const malicious = c.fixtures ? parseFixtures(c.fixtures, `${caseDir}/fixtures.yaml`).find((f) => f.expect !== 'allow') : undefined
  if (!malicious) throw new CliError(`${caseDir}/fixtures.yaml has no malicious example (expect: deny) to prove the pattern is still blocked`)
  const fixturesPath = join(folder, 'fixtures.yaml')
  const existing = existsSync(fixturesPath) ? ((parse(readFileSync(fixturesPath, 'utf8')) as { fixtures?: unknown[] })?.fixtures ?? []) : []
  const allowed = { name: `false positive at seq ${seq} is allowed`, tool: c.bundle.event.tool, input: c.bundle.input.tool_input, expect: 'allow' }
  const blocked = { ...malicious, name: `malicious pattern still blocked (seq ${seq})` }
  writeFileSync(fixturesPath, stringify({ version: 1, fixtures: [...existing, allowed, blocked] }, { lineWidth: 0 }))
  const { raw: _raw, ...redacted } = JSON.parse(c.bundleText) as Record<string, unknown>
  writeFileSync(join(folder, 'reports', `fp-${seq}.json`), `${JSON.stringify({ ...redacted, raw_included: false }, null, 2)}\n`)
  return [
    rulesRepo === undefined ? `no checkout given: wrote a portable report bundle to ${folder}` : `wrote the draft into ${folder} (not committed)`,
    `  rule.yaml (when of ${c.bundle.matched_gate.id} replaced), README.md (note), fixtures.yaml (+2), reports/fp-${seq}.json (redacted)`,
  ]
}
