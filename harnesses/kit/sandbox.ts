/**
 * What every harness's sandbox plan shares (issue 16): how a path is spelled in Claude-style settings, the
 * loopback host spellings a network deny list must name, and the header of svc's TOML sandbox blocks.
 */
import { relative } from 'node:path'
import type { InstallEntry } from '../../harness-contract/index.ts'

/**
 * Every spelling of this host that a name-based network filter may see. Claude's proxy matches domains,
 * not ports, so denying these denies every daemon port ($SVC_PORTS) on loopback; literal IPs are listed
 * because srt refuses a name resolving to loopback only when that IP itself is not allow-listed
 * (anthropics/sandbox-runtime README, "Resolved-address check").
 */
export const LOOPBACK_HOSTS: readonly string[] = [
  // Only patterns sandbox-runtime's settings validator accepts (a domain, `*.domain`, a bracketed IPv6 literal):
  // one invalid entry makes srt refuse the whole configuration. Bare `::1`, `*.localhost` or `2130706433` are refused.
  'localhost',
  '127.0.0.1',
  '127.1',
  '127.0.1',
  '0x7f.0.0.1',
  '0177.0.0.1',
  '0.0.0.0',
  '[::1]',
  '[::]',
  '[::ffff:127.0.0.1]',
  'host.docker.internal',
]

/**
 * Paths as Claude Code's `sandbox.filesystem` lists and `Read(...)`/`Edit(...)` rules take them: `~/…` under
 * the home, `//abs` for an absolute path (SchemaStore claude-code-settings `sandbox.filesystem.allowWrite`:
 * "// (absolute), ~/ (home directory), / (relative to settings file)"; code.claude.com/docs/en/permissions
 * "Read and Edit"). Newer docs read a single `/` as absolute too, so an absolute deny is listed both ways:
 * the extra spelling can only deny more.
 */
export function claudePathSpellings(path: string, home: string): string[] {
  const rel = relative(home, path)
  if (rel === '') return ['~']
  if (!rel.startsWith('..') && !rel.startsWith('/')) return [`~/${rel}`]
  return [`/${path}`, path]
}

/** Appends of each value to the array at `pointer` (skipped by the installer when already present). */
export function appendEach(file: string, pointer: readonly string[], values: readonly unknown[], schema?: string): InstallEntry[] {
  return [...new Set(values)].map((value) => ({ format: 'jsonc' as const, file, pointer, value, ...(schema ? { schema } : {}) }))
}

/** A setting put at `pointer`, remembered for uninstall. */
export function setting(file: string, pointer: readonly string[], value: unknown, schema?: string): InstallEntry {
  return { format: 'jsonc', file, pointer, value, mode: 'set', ...(schema ? { schema } : {}) }
}

/** First line of every TOML block svc writes for a sandbox: says who wrote it and how it goes away. */
export const TOML_SANDBOX_HEADER = '# svc sandbox layer (written by `svc install --sandbox`; `svc uninstall` removes this block)'
