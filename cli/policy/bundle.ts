/**
 * `svc policy bundle keygen|build|sign|verify`: how a security team makes the signed bundle its daemons
 * poll (plugins/policy-bundle). `build` packs a directory laid out like the bundle's `svc` root, lints its
 * policy files and writes `.manifest`; `sign` adds `.signatures.json`; `verify` checks a bundle exactly as
 * a daemon would (pinned keys, every file hash, manifest, svc version) and says why it would be refused.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { Command } from 'commander'
import { writePrivateFile } from '../../core/index.ts'
import { generateSigningKey, loadBundleTools, MANIFEST, parseManifest, refusedName, SIGNATURES, signFiles, trustRoot } from '../../plugins/policy-bundle/index.ts'
import { CliError, type CliIo } from '../io.ts'
import { lintPolicies } from './lint.ts'
import { repeatable } from '../repeatable-option.ts'

/** Runs a step, turning its error into a CLI error with the same message. */
async function step<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run()
  } catch (err) {
    if (err instanceof CliError) throw err
    throw new CliError((err as Error).message)
  }
}

function readFile(path: string, what: string): string {
  if (!existsSync(path)) throw new CliError(`no ${what} at ${path}`)
  return readFileSync(path, 'utf8')
}

/** Every file under `dir`, by its bundle name (`svc/...`). */
function listTree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name)
      if (statSync(path).isDirectory()) walk(path)
      else out.set(`svc/${relative(dir, path).split(sep).join('/')}`, readFileSync(path))
    }
  }
  walk(dir)
  return out
}

interface BuildOpts {
  revision: string
  out: string
  expires?: string
  minSvc?: string
  key?: string
}

async function build(io: CliIo, dir: string, opts: BuildOpts): Promise<void> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliError(`no directory at ${dir}`)
  const revision = Number(opts.revision)
  if (!Number.isSafeInteger(revision) || revision < 1) throw new CliError(`--revision ${opts.revision}: a whole number ≥ 1 (it must go up with every bundle)`)
  const files = listTree(dir)
  for (const name of files.keys()) {
    const refused = refusedName(name)
    if (refused) throw new CliError(`${refused}; a bundle directory holds daemon/<name>.yaml, registry/<id>/rule.yaml and group-policy.yaml`)
  }
  if (files.size === 0) throw new CliError(`${dir} holds no policy files (daemon/<name>.yaml, registry/<id>/rule.yaml, group-policy.yaml)`)
  const lintable = [...files.keys()].filter((n) => n !== 'svc/group-policy.yaml').map((n) => join(dir, n.slice('svc/'.length)))
  const errors = (await lintPolicies(lintable, lintable)).filter((f) => f.severity === 'error')
  if (errors.length > 0)
    throw new CliError(`policy files do not pass lint:\n${errors.map((f) => `  ${f.file}${f.line ? `:${f.line}:${f.col ?? 1}` : ''}: ${f.message}`).join('\n')}`)
  const metadata = { ...(opts.expires ? { expires: opts.expires } : {}), ...(opts.minSvc ? { min_svc: opts.minSvc } : {}) }
  const manifest = Buffer.from(`${JSON.stringify({ revision, roots: ['svc'], metadata }, null, 2)}\n`)
  await step(() => parseManifest(manifest))
  files.set(MANIFEST, manifest)
  if (opts.key) files.set(SIGNATURES, Buffer.from(await step(() => signFiles(files, readFile(opts.key!, 'signing key')))))
  writeFileSync(opts.out, (await loadBundleTools()).packBundle(files))
  io.out(`wrote ${opts.out}: revision ${revision}, ${files.size - (opts.key ? 2 : 1)} policy file(s)${opts.key ? ', signed' : ', unsigned (run `svc policy bundle sign`)'}`)
}

async function sign(io: CliIo, file: string, opts: { key: string; out?: string }): Promise<void> {
  const { packBundle, unpackBundle } = await loadBundleTools()
  const files = await step(async () => unpackBundle(readFileSync(file)))
  files.delete(SIGNATURES)
  parseManifest(files.get(MANIFEST))
  files.set(SIGNATURES, Buffer.from(await step(() => signFiles(files, readFile(opts.key, 'signing key')))))
  const out = opts.out ?? file
  writeFileSync(out, packBundle(files))
  io.out(`signed ${out} (${files.size - 2} policy file(s))`)
}

async function verify(io: CliIo, file: string, opts: { key: string[]; json?: boolean }): Promise<void> {
  if (opts.key.length === 0) throw new CliError('pass --key <public.pem> (the pinned bundle-signing public key; repeatable)')
  const roots = await step(() => opts.key.map((k) => trustRoot(readFile(k, 'public key'))))
  const bytes = await step(() => readFileSync(file))
  let bundle
  try {
    bundle = await (await loadBundleTools()).verifyBundle(bytes, roots)
  } catch (err) {
    throw new CliError(`bundle REFUSED: ${(err as Error).message}`)
  }
  const expired = bundle.expiresAt !== undefined && bundle.expiresAt <= Date.now()
  const report = {
    ok: !expired,
    revision: bundle.revision,
    sha256: bundle.sha256,
    content_hash: bundle.contentHash,
    keyid: bundle.keyid,
    files: [...bundle.files.keys()].filter((n) => n !== MANIFEST && n !== SIGNATURES),
    ...bundle.manifest.metadata,
    expired,
  }
  if (opts.json) io.out(JSON.stringify(report, null, 2))
  else
    io.out(
      `✓ ${file}: revision ${bundle.revision}, signed by ${bundle.keyid}, sha256 ${bundle.sha256}, ${report.files.length} policy file(s)${bundle.manifest.metadata.expires ? `, expires ${bundle.manifest.metadata.expires}` : ''}`,
    )
  if (expired) throw new CliError(`bundle REFUSED: it expired at ${bundle.manifest.metadata.expires}`)
}

function keygen(io: CliIo, opts: { out: string }): Promise<void> {
  return step(async () => {
    if (existsSync(`${opts.out}.key`)) throw new CliError(`${opts.out}.key exists; refusing to overwrite a signing key`)
    const key = await generateSigningKey()
    writePrivateFile(`${opts.out}.key`, key.privatePem)
    writeFileSync(`${opts.out}.pub`, key.publicPem)
    io.out(`wrote ${opts.out}.key (private: keep it off developer machines) and ${opts.out}.pub (pin it in the managed file); key id ${key.keyid}`)
  })
}

export function makeBundleCommand(io: CliIo): Command {
  const bundle = new Command('bundle').description('signed policy bundles for a fleet: keygen, build, sign, verify')
  bundle.addCommand(
    new Command('keygen')
      .description('make an Ed25519 bundle-signing key pair (<out>.key private, <out>.pub public)')
      .requiredOption('--out <prefix>', 'file name prefix')
      .action((opts: { out: string }) => keygen(io, opts)),
  )
  bundle.addCommand(
    new Command('build')
      .description('pack a directory (daemon/<name>.yaml, registry/<id>/rule.yaml, group-policy.yaml) into bundle.tar.gz with a .manifest')
      .argument('<dir>', "the bundle's svc root")
      .requiredOption('--revision <n>', 'integer revision; daemons refuse any revision lower than the active one')
      .requiredOption('--out <file>', 'where to write bundle.tar.gz')
      .option('--expires <date>', 'RFC 3339 time after which daemons refuse to activate this bundle')
      .option('--min-svc <version>', 'oldest svc version that may activate it')
      .option('--key <private.pem>', 'sign at once (same as `svc policy bundle sign`)')
      .action((dir: string, opts: BuildOpts) => build(io, dir, opts)),
  )
  bundle.addCommand(
    new Command('sign')
      .description("write .signatures.json (EdDSA JWS over every file's SHA-256) into a bundle")
      .argument('<file>', 'bundle.tar.gz')
      .requiredOption('--key <private.pem>', 'the bundle-signing private key')
      .option('--out <file>', 'write the signed bundle here (default: in place)')
      .action((file: string, opts: { key: string; out?: string }) => sign(io, file, opts)),
  )
  bundle.addCommand(
    new Command('verify')
      .description('check a bundle as a daemon would: pinned key, every file hash, manifest, svc version, expiry')
      .argument('<file>', 'bundle.tar.gz')
      .option('--key <public.pem>', 'a pinned bundle-signing public key (repeatable)', repeatable, [])
      .option('--json', 'print the result as JSON')
      .action((file: string, opts: { key: string[]; json?: boolean }) => verify(io, file, opts)),
  )
  return bundle
}
