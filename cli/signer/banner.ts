/**
 * Prints the signer banner of a weak tier. Always written to stderr with colour codes, regardless of TTY,
 * NO_COLOR or quiet flags: the spec forbids suppressing it.
 */
import { bannerFor } from '../../core/trust/tiers.ts'
import type { SignerKind } from '../../core/types.ts'

const ANSI = { red: '\u001b[1;31m', yellow: '\u001b[1;33m', reset: '\u001b[0m' } as const

/** The banner line with colour codes, or undefined for strong tiers. */
export function bannerLine(kind: SignerKind): string | undefined {
  const banner = bannerFor(kind)
  return banner && `${ANSI[banner.color]}${banner.text}${ANSI.reset}`
}

/** Writes the banner (if any) for a signer kind to `out` (stderr by default). */
export function printBanner(kind: SignerKind, out: { write(text: string): unknown } = process.stderr): void {
  const line = bannerLine(kind)
  if (line) out.write(`${line}\n`)
}
