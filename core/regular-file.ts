/**
 * Reads a file the daemon did not write (policy files, harness configs in a repository) without ever
 * blocking: opened non-blocking, checked to be a regular file of bounded size on the open descriptor (no
 * race with a swap), then read. A FIFO, a device or a socket would otherwise hang `open()` or `read()` and
 * with it the whole daemon; each is refused with an error that says what the path is.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs'

/** Largest policy or config file read (a bigger one is refused, not truncated). */
export const MAX_READ_BYTES = 4 * 1024 * 1024

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)'
  if (st.isDirectory()) return 'a directory'
  if (st.isSocket()) return 'a socket'
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device'
  return 'not a regular file'
}

/** The UTF-8 text of the regular file at `path`; throws an Error naming why it cannot be read. */
export function readRegularFile(path: string, maxBytes = MAX_READ_BYTES): string {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0))
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENXIO') throw new Error(`${path} is a socket or a device, not a regular file; refusing to read it`)
    throw err
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw new Error(`${path} is ${kindOf(st)}, not a regular file; refusing to read it`)
    if (st.size > maxBytes) throw new Error(`${path} is ${st.size} bytes, more than the ${maxBytes}-byte limit for a file svc reads`)
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1)
    let length = 0
    for (;;) {
      const n = readSync(fd, buf, length, buf.length - length, null)
      if (n === 0) break
      length += n
      if (length > maxBytes) throw new Error(`${path} grew past the ${maxBytes}-byte limit while being read`)
      if (length === buf.length) break
    }
    return buf.subarray(0, length).toString('utf8')
  } finally {
    closeSync(fd)
  }
}
