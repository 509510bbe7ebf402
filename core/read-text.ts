/** Optional-file reads for config discovery and install planning. */
import { readRegularFile } from './regular-file.ts'

/**
 * The UTF-8 text of `path`, or undefined when it cannot be read (missing, a directory, no permission, a
 * FIFO or device, too large): callers treat an unreadable config like an absent one, as the harness would.
 */
export function readText(path: string): string | undefined {
  try {
    return readRegularFile(path)
  } catch {
    return undefined
  }
}
