/**
 * Newline-delimited lines from a stream, each at most `maxBytes` long: a longer line is skipped up to its
 * newline without being held in memory (`overlong` is told its size so far), so neither side of the relay can
 * make it buffer without bound. Empty lines (and `\r` before `\n`) are ignored, as the stdio transport allows.
 */
import type { Readable } from 'node:stream'

/** The longest JSON-RPC line the relay passes (16 MiB: a large tool result, never an unbounded one). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024

export function readLines(input: Readable, maxBytes: number, onLine: (line: string) => void, overlong: (bytes: number) => void, onEnd?: () => void): void {
  let parts: Buffer[] = []
  let held = 0
  let skipping = false
  const emit = (buf: Buffer) => {
    const text = buf.toString('utf8').replace(/\r$/, '')
    if (text.trim()) onLine(text)
  }
  input.on('data', (chunk: Buffer) => {
    let start = 0
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start)
      const end = nl < 0 ? chunk.length : nl
      const piece = chunk.subarray(start, end)
      if (!skipping) {
        if (held + piece.length > maxBytes) {
          skipping = true
          overlong(held + piece.length)
          parts = []
          held = 0
        } else {
          parts.push(piece)
          held += piece.length
        }
      }
      if (nl < 0) break
      if (!skipping) emit(parts.length === 1 ? parts[0]! : Buffer.concat(parts))
      parts = []
      held = 0
      skipping = false
      start = nl + 1
    }
  })
  input.on('end', () => {
    if (!skipping && held > 0) emit(Buffer.concat(parts))
    onEnd?.()
  })
}
