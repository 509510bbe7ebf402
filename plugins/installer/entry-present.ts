/** Whether an entry the installer wrote is still in a file's text (light: `svc status` uses it). */
import { isDeepStrictEqual } from 'node:util'
import { indexOfEqual, valueAt } from './jsonc-edit.ts'
import type { ManifestEntry } from './manifest.ts'

export function entryPresent(text: string, entry: ManifestEntry): boolean {
  if (entry.format === 'toml') return text.includes(entry.text)
  if (entry.op === 'set') return isDeepStrictEqual(valueAt(text, entry.pointer), entry.value)
  return indexOfEqual(text, entry.pointer, entry.value) >= 0
}
