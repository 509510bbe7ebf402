/**
 * `svc fleet verify <archive>`: checks every machine's ledger in an OTLP archive (see cli/fleet/). Exit 1
 * names each machine whose log forked, went back, was truncated or does not verify.
 */
import { existsSync, readFileSync } from 'node:fs'
import { Command } from 'commander'
import { verifierFor } from '../../ledger-verify/index.ts'
import { readTrustFile, type TrustedKeyRecord } from '../../core/index.ts'
import { parseWitnessPolicy, type WitnessPolicy } from '../../plugins/witness/index.ts'
import { readArchive } from '../fleet/archive.ts'
import { verifyMachine, type MachineReport } from '../fleet/verify-fleet.ts'
import { CliError, type CliIo } from '../io.ts'
import { repeatable } from '../repeatable-option.ts'

interface FleetVerifyOpts {
  trustedKeys: string[]
  witnessPolicy?: string
  json?: boolean
}

async function verifyArchive(io: CliIo, archive: string, opts: FleetVerifyOpts): Promise<void> {
  if (!existsSync(archive)) throw new CliError(`no archive at ${archive}`)
  if (opts.trustedKeys.length === 0) throw new CliError("pass --trusted-keys <file> (each machine's trusted-host-keys.json) so session certificates can be checked")
  let trusted: TrustedKeyRecord[]
  let ledgers: ReturnType<typeof readArchive>
  let policy: WitnessPolicy | undefined
  try {
    policy = opts.witnessPolicy ? parseWitnessPolicy(readFileSync(opts.witnessPolicy, 'utf8')) : undefined
    trusted = opts.trustedKeys.flatMap((f) => {
      if (!existsSync(f)) throw new Error(`no trust file at ${f}`)
      return readTrustFile(f)
    })
    ledgers = readArchive(archive)
  } catch (err) {
    throw new CliError((err as Error).message)
  }
  if (ledgers.size === 0) throw new CliError(`${archive} holds no svc ledger records`)
  // libsodium (node:crypto when the binding cannot load): the same strict verify as svc ledger verify, faster.
  const verify = await verifierFor('fast')
  const reports: MachineReport[] = [...ledgers.values()].map((l) => verifyMachine(l, trusted, verify, policy))
  const bad = reports.filter((r) => r.verdict !== 'ok')
  if (opts.json) io.out(JSON.stringify({ ok: bad.length === 0, machines: reports }, null, 2))
  else {
    for (const r of reports) {
      io.out(
        `${r.verdict === 'ok' ? '✓' : '✗'} ${r.origin} (${r.hosts.join(', ') || 'unknown host'}): ${r.leaves} leaves, ${r.checkpoints} checkpoints, checkpointed ${r.checkpointed}${r.witnessed === undefined ? '' : `, witnessed ${r.witnessed}`}, root ${r.root}${r.verdict === 'ok' ? '' : ` — ${r.verdict.toUpperCase().replace('_', ' ')}`}`,
      )
      for (const p of r.problems.slice(0, 20)) io.err(`  ✗ ${r.origin}: ${p}`)
    }
  }
  if (bad.length > 0) throw new CliError(`fleet verification FAILED: ${bad.map((r) => `${r.origin} ${r.verdict.replace('_', ' ')}`).join('; ')}`)
  if (!opts.json) io.out(`fleet verified: ${reports.length} machine(s) OK`)
}

export function makeFleetCommand(io: CliIo): Command {
  const fleet = new Command('fleet').description('check ledgers shipped from many machines (svc fleet verify <archive>)')
  fleet.addCommand(
    new Command('verify')
      .description(
        "rebuild and verify each machine's ledger from an OTLP/JSON archive (a file or a directory of files); names any machine whose log forked, went back or was truncated",
      )
      .argument('<archive>', 'OTLP/JSON lines file, or a directory of them (collector file exporter, awss3 otlp_json)')
      .option('--trusted-keys <file>', 'a trusted-host-keys.json (repeatable: one per machine or one merged)', repeatable, [])
      .option('--witness-policy <file>', 'C2SP tlog-policy: check the shipped witness cosignatures and require its quorum')
      .option('--json', 'print the report as JSON')
      .action((archive: string, opts: FleetVerifyOpts) => verifyArchive(io, archive, opts)),
  )
  return fleet
}
