/**
 * `svc false-positive <seq> --target auto|repo|user --out <dir> [--include-raw]` writes a case directory;
 * `apply <case-dir>` validates, shows the diff, asks (or `--yes`) and applies; `revert <apply-seq>` restores;
 * `rules-patch <case-dir> --rules-repo <path>` drafts the upstream fix of a registry rule.
 */
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline/promises'
import { resolve } from 'node:path'
import { Command, Option } from 'commander'
import { loadRuleAuthoring } from '../../plugins/rule-lifecycle/index.ts'
import { readCaseDir } from '../false-positive/case-dir.ts'
import { writeRulesPatch } from '../false-positive/rules-patch.ts'
import { parseSeq, writeCase, type CaseOpts } from '../false-positive/write-case.ts'
import { installClaudeSkill, skillMarkdown } from '../false-positive/skill.ts'
import { callDaemon, operatorToken } from '../http.ts'
import { CliError, type CliIo } from '../io.ts'
import { daemonUrl } from '../paths.ts'

interface Validation {
  seq: number
  gate_id: string
  replacement_id: string
  target: { choice: string; path: string; layer: string }
  examples_checked: number
  examples_skipped: number
  still_denied_by: string[]
  diff: string
  apply_seq?: number
}

async function confirm(io: CliIo, question: string): Promise<boolean> {
  if (process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stderr })
    try {
      return /^y(es)?$/i.test((await rl.question(question)).trim())
    } finally {
      rl.close()
    }
  }
  io.err(question)
  return /^y(es)?$/i.test((await io.readStdin()).split('\n')[0]!.trim())
}

interface ReplayRow {
  seq: number
  tool: string
  now: string
  candidate: string
  input: Record<string, unknown>
}

interface Replay {
  replayed: number
  now_allowed: ReplayRow[]
  now_denied: ReplayRow[]
}

interface CaseRequestOpts {
  url?: string
  note?: string
  target?: string
}

/** The validate/apply body of a case directory, and the daemon it was made on. */
async function caseRequest(env: NodeJS.ProcessEnv, dir: string, opts: CaseRequestOpts) {
  const { parseFixtures } = await loadRuleAuthoring()
  const c = readCaseDir(resolve(dir))
  // Never the URL written in the case directory: it is untrusted text, and the operator password goes there.
  const url = daemonUrl(env, opts.url)
  const examples = c.fixtures ? parseFixtures(c.fixtures, `${dir}/fixtures.yaml`).filter((f) => f.expect !== 'allow') : []
  const body = { bundle: c.bundle, replacement_yaml: c.draft, target: opts.target ?? c.meta.target, examples, ...(opts.note ? { note: opts.note } : {}) }
  return { c, url, body }
}

async function validate(io: CliIo, url: string, body: object): Promise<Validation> {
  const v = await callDaemon<Validation>(url, '/v1/false-positives/validate', { body })
  io.out(
    `validated: ${v.replacement_id} replaces ${v.gate_id}; it does not match the event at seq ${v.seq} and still blocks ${v.examples_checked} malicious example(s)${v.examples_skipped ? ` (${v.examples_skipped} skipped: the gate does not match them on this machine)` : ''}`,
  )
  if (v.still_denied_by.length > 0) io.out(`note: the call would still be denied by ${v.still_denied_by.join(', ')}`)
  io.out(`target ${v.target.choice}: ${v.target.path}`)
  // A repo target writes into the user's working tree: say so before they are asked to apply.
  if (v.target.layer === 'repo')
    io.out(
      `note: this ${existsSync(v.target.path) ? 'edits' : 'creates'} ${v.target.path}, the repository's policy file, inside your working tree: it shows in \`git status\`, and committing it shares the rule with everyone who clones the repo. To keep it to yourself, use --target user (your user policy file in $SVC_HOME).`,
    )
  io.out(v.diff)
  return v
}

async function applyCase(io: CliIo, dir: string, opts: CaseRequestOpts & { yes?: boolean }): Promise<void> {
  const { c, url, body } = await caseRequest(io.env, dir, opts)
  const token = await operatorToken(url, io)
  const v = await validate(io, url, body)
  if (!opts.yes && !(await confirm(io, `apply this change to ${v.target.path}? [y/N] `))) throw new CliError('not applied: not confirmed (pass --yes to apply without asking)')
  const applied = await callDaemon<Validation>(url, '/v1/false-positives/apply', { body: { ...body, policy_hash: c.bundle.policy_hash }, token })
  io.out(`applied: ${applied.gate_id} disabled and ${applied.replacement_id} added in ${applied.target.path} (ledger seq ${applied.apply_seq})`)
  io.out(`undo with: svc false-positive revert ${applied.apply_seq}`)
}

/** Builds `svc false-positive`. */
export function makeFalsePositiveCommand(io: CliIo): Command {
  const urlOption = () => new Option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
  const cmd = new Command('false-positive')
    .description('recover from a false positive: write a case bundle and a replacement draft, validate and apply it, revert it')
    .argument('[seq]', 'ledger seq of the denied (or monitor-alert) call')
    .addOption(
      new Option('--target <target>', 'where the replacement goes: auto (repo .svc.yaml, else user policy), repo or user').choices(['auto', 'repo', 'user']).default('auto'),
    )
    .option('--out <dir>', 'case directory to write')
    .option('--include-raw', 'include the raw, unredacted call (operator rights)')
    .addOption(urlOption())
    .action(async (seq: string | undefined, opts: CaseOpts) => {
      if (seq === undefined) throw new CliError('give the seq of a denied call (see `svc log --verdict deny`), or a subcommand: apply, revert, rules-patch', 2)
      await writeCase(io, seq, opts)
    })
  cmd.addCommand(
    new Command('apply')
      .description("validate the case directory's replacement, show the diff, confirm and apply it atomically (operator)")
      .argument('<case-dir>', 'directory written by `svc false-positive <seq> --out`')
      .option('--yes', 'apply without asking')
      .option('--note <text>', 'note recorded in the sealed disabled_by metadata')
      .addOption(new Option('--target <target>', "override the case's target").choices(['auto', 'repo', 'user']))
      .addOption(urlOption())
      .action((dir: string, opts: { yes?: boolean; url?: string; note?: string; target?: string }) => applyCase(io, dir, opts)),
  )
  cmd.addCommand(
    new Command('validate')
      .description("check the case directory's replacement without changing anything (no operator rights needed; what an agent's skill runs)")
      .argument('<case-dir>', 'directory written by `svc false-positive <seq> --out`')
      .addOption(new Option('--target <target>', "override the case's target").choices(['auto', 'repo', 'user']))
      .addOption(urlOption())
      .action(async (dir: string, opts: CaseRequestOpts) => {
        const { url, body } = await caseRequest(io.env, dir, opts)
        await validate(io, url, body)
        io.out(`valid. Applying is for the user: \`svc false-positive apply ${dir}\``)
      }),
  )
  cmd.addCommand(
    new Command('replay')
      .description("decide the newest recorded calls again with the case directory's replacement: which past denies it would now allow (nothing changes)")
      .argument('<case-dir>', 'directory written by `svc false-positive <seq> --out`')
      .option('--limit <n>', 'how many of the newest recorded decisions to replay (default 500)')
      .addOption(new Option('--target <target>', "override the case's target").choices(['auto', 'repo', 'user']))
      .addOption(urlOption())
      .action(async (dir: string, opts: CaseRequestOpts & { limit?: string }) => {
        const { c, url, body } = await caseRequest(io.env, dir, opts)
        const query = opts.limit === undefined ? '' : `?limit=${parseSeq(opts.limit)}`
        const r = await callDaemon<Replay>(url, `/v1/false-positives/cases/${String(c.bundle.event.seq)}/replay${query}`, { body })
        io.out(`replayed ${r.replayed} recorded decision(s): ${r.now_allowed.length} past deny(s) would now be allowed, ${r.now_denied.length} past allow(s) would now be denied`)
        for (const row of [...r.now_allowed, ...r.now_denied]) io.out(`  seq ${row.seq} ${row.tool} ${row.now} -> ${row.candidate}: ${JSON.stringify(row.input)}`)
      }),
  )
  cmd.addCommand(
    new Command('revert')
      .description('restore the policy file a false-positive apply changed (operator)')
      .argument('<apply-seq>', 'ledger seq of the apply (printed by `apply`)')
      .addOption(urlOption())
      .action(async (seqText: string, opts: { url?: string }) => {
        const url = daemonUrl(io.env, opts.url)
        const token = await operatorToken(url, io)
        const r = await callDaemon<{ revert_seq: number; path: string; gate_id: string }>(url, '/v1/false-positives/revert', { body: { apply_seq: parseSeq(seqText) }, token })
        io.out(`reverted: ${r.gate_id} is active again in ${r.path} (ledger seq ${r.revert_seq})`)
      }),
  )
  cmd.addCommand(
    new Command('skill')
      .description('print the harness-neutral agent skill, or install it for Claude Code')
      .option('--install <root>', 'install .claude/skills/svc-false-positive/SKILL.md under this home or repository')
      .action((opts: { install?: string }) => {
        if (!opts.install) return io.out(skillMarkdown())
        const r = installClaudeSkill(resolve(opts.install))
        io.out(`false-positive skill: ${r.path}${r.changed ? '' : ' (already installed)'}`)
      }),
  )
  cmd.addCommand(
    new Command('rules-patch')
      .description('draft the upstream fix of a registry rule into a rules-registry checkout (never commits); without --rules-repo, a portable report bundle')
      .argument('<case-dir>', 'directory written by `svc false-positive <seq> --out`')
      .option('--rules-repo <path>', 'clean git checkout of the rules registry')
      .action(async (dir: string, opts: { rulesRepo?: string }) => {
        for (const line of await writeRulesPatch(resolve(dir), opts.rulesRepo === undefined ? undefined : resolve(opts.rulesRepo))) io.out(line)
      }),
  )
  return cmd
}
