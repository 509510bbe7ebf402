/** Optional-file reads for config discovery and install planning. */
import { readFileSync } from 'node:fs'

/**
 * The UTF-8 text of `path`, or undefined when it cannot be read (missing, a directory, no permission):
 * callers treat an unreadable config like an absent one, as the harness reading it would.
 */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}
