/**
 * The one ledger filter of the client commands (`svc log`, `svc tail`, `svc top`): the same options on every
 * command, turned into the query of `GET /v1/ledger/entries` (whose server side is daemon/read-models/ledger-query.ts).
 */
import type { Command } from 'commander'
import { parseDuration } from '../core/index.ts'
import { CliError } from './io.ts'

export interface LedgerFilter {
  readonly verdict?: string
  readonly rule?: string
  readonly session?: string
  readonly harness?: string
  readonly tool?: string
  readonly since?: string
  readonly until?: string
  /** Every entry kind (sessions, outcomes, policy changes), not only decisions. */
  readonly all?: boolean
}

/** The decision verdicts: what a filter without `verdict` or `all` shows. */
export const DECISION_VERDICTS = 'allow,deny,monitor_alert'

/** Adds the filter options to `cmd` (the same names and words on every command). */
export function withLedgerFilterOptions(cmd: Command): Command {
  return cmd
    .option('--verdict <list>', 'comma-separated verdicts (allow, deny, monitor_alert, ran, tool_errored, ...); default: decisions')
    .option('--rule <id>', 'matched gate id')
    .option('--session <id>', 'session id')
    .option('--harness <id>', 'harness (claude-code, codex, gemini, cursor, ...)')
    .option('--tool <name>', 'tool name, e.g. Bash')
    .option('--since <time>', 'ISO time, epoch ms, or a duration ago (30m, 2h, 7d)')
    .option('--until <time>', 'ISO time, epoch ms, or a duration ago')
    .option('--all', 'every entry kind (sessions, outcomes, policy changes), not only decisions')
}

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

/** The entries query string for `filter` plus paging parameters (`after`, `before`, `order`, `limit`). */
export function ledgerQuery(filter: LedgerFilter, paging: Record<string, string | undefined>, now = Date.now()): string {
  const verdict = filter.verdict ?? (filter.all ? undefined : DECISION_VERDICTS)
  const params = {
    verdict,
    rule: filter.rule,
    session: filter.session,
    harness: filter.harness,
    tool: filter.tool,
    since: timeOf(filter.since, now),
    until: timeOf(filter.until, now),
    ...paging,
  }
  return new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString()
}
