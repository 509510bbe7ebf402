/**
 * `svc log`: what the agent did, newest first — decisions filtered by verdict, rule, session, harness, tool
 * and time, with the redacted command, path or URL of each call (the daemon's one redaction). `--follow`
 * streams new entries, `--json` prints one JSON object per line.
 */
import { Command } from 'commander'
import { callDaemon } from '../http.ts'
import { CliError, type CliIo } from '../io.ts'
import { daemonUrl } from '../paths.ts'
import { parseDuration } from '../../core/index.ts'

interface LogOpts {
  verdict?: string
  rule?: string
  session?: string
  harness?: string
  tool?: string
  since?: string
  until?: string
  limit: string
  follow?: boolean
  json?: boolean
  all?: boolean
  url?: string
}

interface Entry {
  seq: number
  leaf: { ts_ms: number; type: string; verdict: string; source: string; tool: string; rule_id: string; session_id: string; reason: string; parent_seq?: number }
}

type Call = { seq: number; input: { command?: string; path?: string; url?: string; cwd?: string }; redacted: boolean }

/** `--since 1h` (ago) or an ISO time or epoch ms, as the API takes it. */
function timeOf(value: string | undefined, now: number): string | undefined {
  if (value === undefined) return undefined
  if (/^[0-9]+[smhd]/.test(value) && !/^[0-9]{4}-/.test(value)) {
    try {
      return String(now - parseDuration(value))
    } catch (err) {
      throw new CliError(`--since/--until: ${(err as Error).message}`, 2)
    }
  }
  return value
}

function query(opts: LogOpts, extra: Record<string, string | undefined>): string {
  const now = Date.now()
  const verdict = opts.verdict ?? (opts.all ? undefined : 'allow,deny,monitor_alert')
  const params = { verdict, rule: opts.rule, session: opts.session, harness: opts.harness, tool: opts.tool, since: timeOf(opts.since, now), until: timeOf(opts.until, now), ...extra }
  return new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString()
}

function line(e: Entry, call: Call | undefined): string {
  const what = call ? (call.input.command ?? call.input.path ?? call.input.url ?? '') : e.leaf.reason
  const time = new Date(e.leaf.ts_ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z')
  return `${String(e.seq).padStart(6)}  ${time}  ${e.leaf.verdict.padEnd(13)} ${e.leaf.source.padEnd(11)} ${e.leaf.tool.padEnd(10)} ${(e.leaf.rule_id || '-').padEnd(24)} ${what}`
}

async function print(io: CliIo, url: string, entries: Entry[], json: boolean | undefined): Promise<void> {
  const seqs = entries.filter((e) => e.leaf.type === 'decision').map((e) => e.seq)
  const calls = seqs.length === 0 ? [] : (await callDaemon<{ calls: Call[] }>(url, `/v1/ledger/calls?seqs=${seqs.join(',')}`)).calls
  const bySeq = new Map(calls.map((c) => [c.seq, c]))
  for (const e of entries) {
    const call = bySeq.get(e.seq)
    if (json) io.out(JSON.stringify({ seq: e.seq, at: new Date(e.leaf.ts_ms).toISOString(), verdict: e.leaf.verdict, harness: e.leaf.source, tool: e.leaf.tool, rule_id: e.leaf.rule_id, session_id: e.leaf.session_id, reason: e.leaf.reason, ...(call ? { input: call.input } : {}) }))
    else io.out(line(e, call))
  }
}

export function makeLogCommand(io: CliIo): Command {
  return new Command('log')
    .description('what the agent did: decisions newest first, filtered, with the redacted command, path or URL')
    .option('--verdict <list>', 'comma-separated verdicts (allow, deny, monitor_alert, ran, tool_errored, ...); default: decisions')
    .option('--rule <id>', 'matched gate id')
    .option('--session <id>', 'session id')
    .option('--harness <id>', 'harness (claude-code, codex, gemini, cursor, ...)')
    .option('--tool <name>', 'tool name, e.g. Bash')
    .option('--since <time>', 'ISO time, epoch ms, or a duration ago (30m, 2h, 7d)')
    .option('--until <time>', 'ISO time, epoch ms, or a duration ago')
    .option('--limit <n>', 'at most this many entries', '50')
    .option('--all', 'every entry kind (sessions, outcomes, policy changes), not only decisions')
    .option('--follow', 'keep printing new entries as they are recorded')
    .option('--json', 'one JSON object per line')
    .option('--url <url>', 'daemon base URL (default $SVC_URL or http://127.0.0.1:7878)')
    .action(async (opts: LogOpts) => {
      if (!/^[1-9][0-9]{0,3}$/.test(opts.limit)) throw new CliError('--limit must be a whole number from 1 to 9999', 2)
      const url = daemonUrl(io.env, opts.url)
      const page = await callDaemon<{ entries: Entry[]; tree_size: number }>(url, `/v1/ledger/entries?${query(opts, { order: 'desc', limit: String(Math.min(Number(opts.limit), 1000)) })}`)
      await print(io, url, page.entries, opts.json)
      if (!opts.follow) return
      let after = page.tree_size - 1
      for (;;) {
        await new Promise((r) => setTimeout(r, 1000))
        const next = await callDaemon<{ entries: Entry[]; tree_size: number }>(url, `/v1/ledger/entries?${query(opts, { after: String(after), limit: '1000' })}`)
        await print(io, url, next.entries, opts.json)
        after = Math.max(after, next.tree_size - 1)
      }
    })
}
