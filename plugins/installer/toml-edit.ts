/**
 * Edit-preserving TOML: our block is appended textually at the end of the file (array-of-tables entries
 * may be appended anywhere, and appending keeps positional keys of the user's entries stable), and the
 * result is parsed with smol-toml before anything is written.
 */
import { parse } from 'smol-toml'

/** Appends `block` (which starts with its own separator line) after the file's last line. */
export function appendBlock(text: string, block: string): string {
  const base = text === '' || text.endsWith('\n') ? text : `${text}\n`
  return `${base}${block.endsWith('\n') ? block : `${block}\n`}`
}

/** Puts `block` before the file's first line: top-level keys must come before any `[table]`. */
export function prependBlock(text: string, block: string): string {
  const body = block.endsWith('\n') ? block : `${block}\n`
  return `${body}${text}`
}

/** The exact text `appendBlock` added, so removal can cut exactly that. */
export function appendedText(before: string, after: string): string {
  return after.slice(before.length)
}

/** Removes the last occurrence of `inserted`; undefined when it is no longer there verbatim. */
export function removeBlock(text: string, inserted: string): string | undefined {
  const at = text.lastIndexOf(inserted)
  if (at < 0) return undefined
  return text.slice(0, at) + text.slice(at + inserted.length)
}

/** Throws a clear error when the text is not valid TOML. */
export function assertToml(text: string, path: string): void {
  try {
    parse(text)
  } catch (cause) {
    const message = cause instanceof Error ? cause.message.split('\n')[0] : String(cause)
    throw new Error(`${path} would not be valid TOML after the edit (${message}); refusing to change it`)
  }
}
