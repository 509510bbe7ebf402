/**
 * `svc export otlp`: ships the ledger (every leaf, each signed checkpoint) to an OpenTelemetry collector as
 * OTLP/HTTP protobuf log records, from the durable per-endpoint cursor on. One-shot by default (exit 1 when
 * the collector refuses a batch; what was accepted stays accepted), or `--follow` to keep shipping with
 * backoff until interrupted. The daemon does the same continuously when SVC_OTLP_ENDPOINT is set.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Command, InvalidArgumentError } from 'commander'
import { parseDuration } from '../../core/index.ts'
import { loadOtlpExport, parseHeaders } from '../../plugins/otlp-export/index.ts'
import { witnessCosignatures } from '../../plugins/witness/index.ts'
import { CliError, type CliIo } from '../io.ts'
import { svcHome, userHomeOf, VERSION } from '../paths.ts'
import { repeatable } from '../repeatable-option.ts'

interface OtlpOpts {
  endpoint?: string
  header: string[]
  ca?: string
  cert?: string
  key?: string
  home?: string
  follow?: boolean
  interval: string
  batchSize: number
  timeout: string
}

function parseBatch(value: string): number {
  const n = Number(value)
  if (!/^[1-9][0-9]*$/.test(value) || n > 10_000) throw new InvalidArgumentError('must be a whole number from 1 to 10000')
  return n
}

async function exportOtlp(io: CliIo, opts: OtlpOpts): Promise<void> {
  const endpoint = opts.endpoint ?? io.env.SVC_OTLP_ENDPOINT
  if (!endpoint) throw new CliError('no collector endpoint: pass --endpoint <url> or set SVC_OTLP_ENDPOINT')
  const home = svcHome(io.env, opts.home)
  const dbPath = join(home, 'ledger.db')
  if (!existsSync(dbPath)) throw new CliError(`no ledger database at ${dbPath}`)
  let headers: Record<string, string>
  let timeoutMs: number
  let pollMs: number
  try {
    headers = { ...(io.env.SVC_OTLP_HEADERS ? parseHeaders(io.env.SVC_OTLP_HEADERS) : {}), ...parseHeaders(opts.header.join(',')) }
    timeoutMs = parseDuration(opts.timeout)
    pollMs = parseDuration(opts.interval)
  } catch (err) {
    throw new CliError((err as Error).message)
  }
  const { openOtlpExport, ExportRefused } = await loadOtlpExport()
  const settings = {
    endpoint,
    headers,
    caFile: opts.ca ?? (io.env.SVC_OTLP_CA || undefined),
    certFile: opts.cert ?? (io.env.SVC_OTLP_CERT || undefined),
    keyFile: opts.key ?? (io.env.SVC_OTLP_KEY || undefined),
    timeoutMs,
    batchSize: opts.batchSize,
  }
  // The export composes two plugins: the witnesses' cosignatures kept beside the ledger ship with it.
  const opened = openOtlpExport(home, settings, { userHome: userHomeOf(io.env), version: VERSION, dbPath, cosignatures: (origin) => witnessCosignatures(home, origin) })
  const from = opened.shipper.cursor().nextSeq
  try {
    if (opts.follow) {
      const abort = new AbortController()
      const stop = () => abort.abort()
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
      io.out(`following ${dbPath} from seq ${from} to ${endpoint} (Ctrl-C stops)`)
      const totals = await opened.shipper.follow(abort.signal, { pollMs, onError: (err) => io.err(`${err.message}; retrying`) })
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      io.out(`exported ${totals.leaves} leaves and ${totals.checkpoints} checkpoints in ${totals.requests} requests`)
      return
    }
    const totals = await opened.shipper.drain()
    io.out(
      `exported ${totals.leaves} leaves (seq ${from}..${opened.shipper.cursor().nextSeq - 1}) and ${totals.checkpoints} checkpoints in ${totals.requests} requests to ${endpoint}`,
    )
  } catch (err) {
    if (err instanceof ExportRefused) throw new CliError(`${err.message}; the cursor stays at seq ${opened.shipper.cursor().nextSeq}, nothing is lost`)
    throw err
  } finally {
    await opened.close()
  }
}

export function makeExportCommand(io: CliIo): Command {
  const cmd = new Command('export').description('ship the ledger to fleet systems (OpenTelemetry collectors)')
  cmd.addCommand(
    new Command('otlp')
      .description('send every leaf and signed checkpoint not yet accepted by the collector as OTLP/HTTP protobuf log records')
      .option('--endpoint <url>', 'collector base URL, e.g. http://127.0.0.1:4318 (default $SVC_OTLP_ENDPOINT)')
      .option('--header <key=value>', 'request header (repeatable; also $SVC_OTLP_HEADERS as k=v,k=v)', repeatable, [])
      .option('--ca <file>', 'PEM CA bundle to trust for an https endpoint (default $SVC_OTLP_CA)')
      .option('--cert <file>', 'PEM client certificate for mTLS (default $SVC_OTLP_CERT)')
      .option('--key <file>', 'PEM client key for mTLS (default $SVC_OTLP_KEY)')
      .option('--home <dir>', 'state directory ($SVC_HOME, default ~/.svc)')
      .option('--follow', 'keep shipping new leaves until interrupted (retrying with backoff while the collector is down)')
      .option('--interval <duration>', 'with --follow: how often to look for new leaves', '1s')
      .option('--batch-size <n>', 'leaves per request', parseBatch, 512)
      .option('--timeout <duration>', "per request, the exporter's own retries included", '10s')
      .action((opts: OtlpOpts) => exportOtlp(io, opts)),
  )
  return cmd
}
