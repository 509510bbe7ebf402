/**
 * `bundle.tar.gz` in and out of memory with `tar` (strict: a truncated or corrupt archive is an error,
 * never a partial bundle). Only regular files under plain names are accepted, each once, within limits.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import { create, Parser, type ReadEntry } from 'tar'
import { BundleError, MAX_BUNDLE_BYTES, refusedName } from './layout.ts'

export { BundleError, MAX_BUNDLE_BYTES }

const MAX_FILES = 4096

const gunzipAsync = promisify(gunzip)

/**
 * The tar inside a gzip, decompressed off the event loop (zlib's thread pool, chunk by chunk) and cut off as soon
 * as it passes MAX_BUNDLE_BYTES: a gzip bomb (4 MB that unpack to 4 GiB) costs 16 MiB of work, not 4 GiB.
 */
async function gunzipBounded(bytes: Uint8Array): Promise<Buffer> {
  if (!(bytes[0] === 0x1f && bytes[1] === 0x8b)) return Buffer.from(bytes)
  try {
    return await gunzipAsync(bytes, { maxOutputLength: MAX_BUNDLE_BYTES })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new BundleError(`bundle unpacks to more than ${MAX_BUNDLE_BYTES} bytes`)
    throw new BundleError(`bundle is not a readable tar.gz (truncated or corrupt): ${(err as Error).message}`)
  }
}

/** The files of a `bundle.tar.gz`, by name; throws BundleError naming what was wrong. */
export async function unpackBundle(bytes: Uint8Array): Promise<Map<string, Buffer>> {
  if (bytes.length > MAX_BUNDLE_BYTES) throw new BundleError(`bundle is ${bytes.length} bytes; at most ${MAX_BUNDLE_BYTES} are accepted`)
  const tarBytes = await gunzipBounded(bytes)
  return new Promise((resolve, reject) => {
    const files = new Map<string, Buffer>()
    let total = 0
    let failed: Error | undefined
    const fail = (message: string): void => {
      failed ??= new BundleError(message)
    }
    const onEntry = (entry: ReadEntry): void => {
      const name = entry.path.replace(/^\.\//, '')
      if (entry.type === 'Directory') {
        entry.resume()
        return
      }
      const refused = entry.type !== 'File' ? `"${name}" is a ${entry.type}, not a regular file` : files.has(name) ? `"${name}" appears twice` : refusedName(name)
      if (refused) {
        fail(`bundle refused: ${refused}`)
        entry.resume()
        return
      }
      if (files.size >= MAX_FILES) fail(`bundle holds more than ${MAX_FILES} files`)
      const chunks: Buffer[] = []
      entry.on('data', (chunk: Buffer) => {
        total += chunk.length
        if (total > MAX_BUNDLE_BYTES) fail(`bundle unpacks to more than ${MAX_BUNDLE_BYTES} bytes`)
        else chunks.push(chunk)
      })
      entry.on('end', () => files.set(name, Buffer.concat(chunks)))
    }
    const settle = (): void => (failed ? reject(failed) : resolve(files))
    const parser = new Parser({ strict: true, onReadEntry: onEntry })
    // A corrupt or truncated archive aborts with an error and never closes.
    parser.on('error', (err: Error) => {
      fail(`bundle is not a readable tar.gz (truncated or corrupt): ${err.message}`)
      settle()
    })
    parser.on('close', settle)
    try {
      parser.end(tarBytes)
    } catch (err) {
      fail(`bundle is not a readable tar.gz: ${(err as Error).message}`)
      settle()
    }
  })
}

/** Packs files into a deterministic `bundle.tar.gz` (no owners, no times: the same files give the same bytes). */
export function packBundle(files: ReadonlyMap<string, Uint8Array>): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bundle-'))
  try {
    const names = [...files.keys()].sort()
    for (const name of names) {
      const refused = refusedName(name)
      if (refused) throw new BundleError(refused)
      mkdirSync(dirname(join(dir, 'in', name)), { recursive: true })
      writeFileSync(join(dir, 'in', name), files.get(name)!)
    }
    const out = join(dir, 'bundle.tar.gz')
    create({ gzip: true, cwd: join(dir, 'in'), file: out, sync: true, portable: true, noMtime: true, noDirRecurse: true }, names)
    return readFileSync(out)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
