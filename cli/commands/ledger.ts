/**
 * `svc ledger verify` checks a whole ledger offline — every leaf's hash, chain and signature (or the
 * unsigned-leaf rule), each session certificate against the trusted host keys, every checkpoint in ledger.db and
 * in checkpoints.log, and which leaves no signed checkpoint covers — from the database file (with a thread per
 * core) or an export. `svc ledger export` writes the portable export.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Command, InvalidArgumentError } from 'commander'
import { exportLedger, sourceFromExport, verifierFor, verifyLedger, verifyLedgerDatabase, type CheckpointLogInput, type LedgerVerifyReport } from '../../ledger-verify/index.ts'
import { PAYLOADS_FILE, PayloadStore, verifyPayloads } from '../../plugins/rule-lifecycle/index.ts'
import { LedgerStore, readCheckpointLog, readTrustedHostKeys, readTrustFile, writePrivateFile, type TrustedKeyRecord } from '../../core/index.ts'
import { witnessReport, type WitnessReport } from '../fleet/witness-report.ts'
import { outsideRecords } from '../ledger-outside.ts'
import { loadLogKey } from '../../plugins/witness/index.ts'
import { CliError, type CliIo } from '../io.ts'
import { svcHome } from '../paths.ts'

interface VerifyOpts {
  home?: string
  db?: string
  file?: string
  trustedKeys?: string
  checkpointLog?: string
  portable?: boolean
  threads?: number
  json?: boolean
  witnessPolicy?: string
}

function parseThreads(value: string): number {
  const n = Number(value)
  if (!/^[1-9][0-9]*$/.test(value) || n > 64) throw new InvalidArgumentError('must be a whole number from 1 to 64')
  return n
}

/** Reads the checkpoint log for verification; undefined when there is none to check (an export without one). */
function checkpointLogInput(path: string | undefined): CheckpointLogInput | undefined {
  if (path === undefined) return undefined
  return { path, ...readCheckpointLog(path) }
}

async function verify(io: CliIo, opts: VerifyOpts): Promise<void> {
  const home = svcHome(io.env, opts.home)
  const dbPath = opts.db ?? join(home, 'ledger.db')
  if (!opts.file && !existsSync(dbPath)) throw new CliError(`no ledger database at ${dbPath} (pass --db <path> or --file <export.json>)`)
  let trusted: TrustedKeyRecord[]
  try {
    trusted = opts.trustedKeys ? readTrustFile(opts.trustedKeys) : readTrustedHostKeys(home)
  } catch (err) {
    throw new CliError((err as Error).message)
  }
  const started = performance.now()
  let report: LedgerVerifyReport
  if (opts.file) {
    const source = sourceFromExport(opts.file)
    report = verifyLedger({ ...source, log: checkpointLogInput(opts.checkpointLog), trustedHostKeys: trusted, verify: await verifierFor(opts.portable ? 'portable' : 'fast') })
  } else {
    const log = checkpointLogInput(opts.checkpointLog ?? join(dbPath, '..', 'checkpoints.log'))
    report = await verifyLedgerDatabase({ path: dbPath, trustedHostKeys: trusted, verifier: opts.portable ? 'portable' : 'fast', log, threads: opts.threads })
  }
  const seconds = (performance.now() - started) / 1000
  const outside = opts.file ? undefined : outsideRecords(io.env, dbPath, report.treeSize)
  const policy = opts.witnessPolicy ?? io.env.SVC_WITNESS_POLICY
  const witnesses = opts.file ? undefined : witnessReport(dbPath, policy, opts.witnessPolicy !== undefined)
  if (opts.json) io.out(JSON.stringify({ ...report, seconds, ...(outside ? { outside } : {}), ...(witnesses ? { witnesses: witnesses.json } : {}) }, null, 2))
  else {
    const c = report.counts
    io.out(`ledger ${opts.file ?? dbPath}: ${report.treeSize} leaves, root ${report.root}`)
    io.out(
      `signed ${c.signed}, unsigned ${c.unsigned}, sessions ${c.sessions}, checkpoints ${c.checkpoints} (+${c.logged} in checkpoints.log); ${seconds.toFixed(2)} s, ${Math.round(report.treeSize / Math.max(seconds, 1e-9))} leaves/s (${opts.portable ? 'noble' : 'libsodium'})`,
    )
    if (report.uncovered) {
      const { from, to } = report.uncovered
      io.out(`not covered by a signed checkpoint: seq ${from}..${to} (${to - from + 1} leaves; they could be cut off without a trace)`)
    }
    for (const w of outside?.warnings ?? []) io.out(`WARNING: ${w}`)
    for (const p of report.problems) io.err(`  ✗ ${p}`)
  }
  for (const p of outside?.problems ?? []) io.err(`  ✗ ${p}`)
  const problems = report.problemCount + (outside?.problems.length ?? 0)
  if (problems > 0) throw new CliError(`ledger verification FAILED: ${problems} problem(s)`)
  if (!opts.file) checkStoredPayloads(io, dbPath, opts.json)
  if (witnesses) checkWitnesses(io, witnesses, opts.json)
  if (!opts.json) io.out('ledger verified: OK')
}

/** Witness cosignatures kept beside the ledger must be of checkpoints this ledger signed (and verify), and the quorum hold for the newest. */
function checkWitnesses(io: CliIo, report: WitnessReport, json: boolean | undefined): void {
  if (!json) for (const line of report.lines) io.out(line)
  for (const p of report.problems) io.err(`  ✗ ${p}`)
  if (report.problems.length > 0) throw new CliError(`witness verification FAILED: ${report.problems.length} problem(s)`)
}

/** Every call kept in payloads.db (beside the ledger) must hash to its leaf's payload_hash. */
function checkStoredPayloads(io: CliIo, dbPath: string, json: boolean | undefined): void {
  const path = join(dirname(dbPath), PAYLOADS_FILE)
  if (!existsSync(path)) return
  const store = new PayloadStore(path, undefined, { readOnly: true })
  const ledger = new LedgerStore(dbPath, { readOnly: true })
  try {
    const { checked, problems } = verifyPayloads(store, (seq) => {
      const row = ledger.leaf(seq)
      return row ? (JSON.parse(row.body) as { payload_hash: string }).payload_hash : undefined
    })
    if (!json) io.out(`stored calls: ${checked} checked against their leaves`)
    for (const p of problems) io.err(`  ✗ ${p}`)
    if (problems.length > 0) throw new CliError(`payload verification FAILED: ${problems.length} problem(s)`)
  } finally {
    store.close()
    ledger.close()
  }
}

export function makeLedgerCommand(io: CliIo): Command {
  const ledger = new Command('ledger').description('inspect and verify the signed Merkle ledger')
  ledger.addCommand(
    new Command('verify')
      .description('verify the whole ledger offline (hashes, chain, signatures, unsigned-leaf rule, session certificates, checkpoints in ledger.db and checkpoints.log)')
      .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
      .option('--db <path>', 'ledger database (default $SVC_HOME/ledger.db)')
      .option('--file <path>', 'verify an export written by `svc ledger export` instead of a database')
      .option('--trusted-keys <path>', 'trusted-host-keys.json to check session certificates against (default $SVC_HOME/trusted-host-keys.json)')
      .option('--checkpoint-log <path>', 'checkpoints.log to cross-check (default: beside the database; with --file, none unless given)')
      .option('--portable', 'verify signatures with pure-JS @noble/ed25519 instead of node:crypto (slower)')
      .option('--threads <n>', 'verifier threads for a database (default: one per core)', parseThreads)
      .option('--json', 'print the full report as JSON')
      .option('--witness-policy <file>', 'C2SP tlog-policy file to check witness cosignatures with (default $SVC_WITNESS_POLICY)')
      .action((opts: VerifyOpts) => verify(io, opts)),
  )
  ledger.addCommand(
    new Command('export')
      .description('write the ledger (exact leaf bytes, signatures, checkpoints) as one JSON file')
      .requiredOption('--out <path>', 'file to write')
      .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
      .option('--db <path>', 'ledger database (default $SVC_HOME/ledger.db)')
      .action((opts: { out: string; home?: string; db?: string }) => {
        const dbPath = opts.db ?? join(svcHome(io.env, opts.home), 'ledger.db')
        if (!existsSync(dbPath)) throw new CliError(`no ledger database at ${dbPath}`)
        const doc = exportLedger(dbPath)
        writePrivateFile(opts.out, JSON.stringify(doc))
        io.out(`wrote ${doc.tree_size} leaves and ${doc.checkpoints.length} checkpoints to ${opts.out}`)
      }),
  )
  ledger.addCommand(
    new Command('log-key')
      .description('print the verifier key (vkey) witnesses must be configured with for this ledger (creates the host log key on first use)')
      .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
      .action((opts: { home?: string }) => {
        const home = svcHome(io.env, opts.home)
        const dbPath = join(home, 'ledger.db')
        if (!existsSync(dbPath)) throw new CliError(`no ledger database at ${dbPath} (start the daemon once)`)
        const store = new LedgerStore(dbPath, { readOnly: true })
        const origin = store.meta('origin')
        store.close()
        if (!origin) throw new CliError(`${dbPath} has no origin yet`)
        io.out(loadLogKey(home, origin).vkey)
      }),
  )
  return ledger
}
