/**
 * Files a patch changes, from its text: `apply_patch` envelopes (`*** Update File: x`, `*** Move to:`)
 * and unified diffs (`--- a/x`, `+++ b/x`, `diff --git a/x b/y`, `rename to x`). Shared by harness
 * folders whose tools take patches, the tool-input normaliser (any tool whose input carries a patch) and the shell analysis
 * (`apply_patch <<EOF`, `git apply`, `patch`), so a policy file changed by a patch is seen by every route.
 */

export type PatchChange = 'Add' | 'Update' | 'Delete' | 'Move'

/** The reference apply_patch parser trims marker lines, so leading and trailing blanks are allowed here too. */
const ENVELOPE_LINE = /^[ \t]*\*\*\* (Add|Update|Delete) File: (.+?)[ \t\r]*$/gm
const MOVE_LINE = /^[ \t]*\*\*\* Move to: (.+?)[ \t\r]*$/gm
const DIFF_FILE = /^(?:\+\+\+|---) (?:"((?:[^"\\]|\\.)*)"|([^\t\r\n]+?))(?:\t.*)?\r?$/gm
const GIT_HEADER = /^diff --git (?:"?a\/)(.+?)"? (?:"?b\/)(.+?)"?\r?$/gm
const RENAME_LINE = /^(?:rename|copy) (?:from|to) (.+?)\r?$/gm
/** At most this many targets are returned; a caller that gets this many must treat the patch as not fully read. */
export const MAX_PATCH_TARGETS = 256
const MAX_TARGETS = MAX_PATCH_TARGETS

/** Paths an apply_patch envelope touches, in order, with the kind of change of each. */
export function patchTargets(patch: string): { kind: PatchChange; path: string }[] {
  const out: { kind: PatchChange; path: string }[] = []
  for (const m of patch.matchAll(ENVELOPE_LINE)) out.push({ kind: m[1] as PatchChange, path: m[2]! })
  for (const m of patch.matchAll(MOVE_LINE)) out.push({ kind: 'Move', path: m[1]! })
  return out.slice(0, MAX_TARGETS)
}

/** True when `text` holds an apply_patch envelope or a unified diff. */
export function looksLikePatch(text: string): boolean {
  return /\*\*\* (Begin Patch|Add File: |Update File: |Delete File: )/.test(text) || (/^(\+\+\+|---) \S/m.test(text) && /^@@ /m.test(text)) || /^diff --git /m.test(text)
}

/**
 * Every path a patch text changes (envelope or unified diff), as written in the patch. Unified-diff paths
 * are returned both with and without their first component (`a/x` and `x`), since `-p1` decides which.
 */
export function patchedPaths(text: string): string[] {
  const out = new Set<string>()
  for (const t of patchTargets(text)) out.add(t.path)
  const addStripped = (p: string): void => {
    if (p === '/dev/null' || p === '') return
    out.add(p)
    const slash = p.indexOf('/')
    if (slash > 0) out.add(p.slice(slash + 1))
  }
  for (const m of text.matchAll(DIFF_FILE)) addStripped((m[1] ?? m[2] ?? '').trim())
  for (const m of text.matchAll(GIT_HEADER)) {
    out.add(m[1]!)
    out.add(m[2]!)
  }
  for (const m of text.matchAll(RENAME_LINE)) out.add(m[1]!)
  return [...out].slice(0, MAX_TARGETS)
}
