/**
 * The agent skill for false positives: one harness-neutral markdown text (`skills/false-positive.md`), installed
 * for Claude Code as `.claude/skills/svc-false-positive/SKILL.md` (with the skill front matter) on request. The
 * skill only drafts and validates; applying stays the operator's (the self-protection pack denies it to agents).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { PROJECT_ROOT } from '../paths.ts'

export const SKILL_SOURCE = join(PROJECT_ROOT, 'skills', 'false-positive.md')
const FRONT_MATTER =
  '---\nname: svc-false-positive\ndescription: Use when svc denied a tool call you believe was a false positive. Drafts a narrow replacement gate from the case bundle and runs `svc false-positive validate`; applying is left to the user.\n---\n\n'

/** The harness-neutral skill text. */
export function skillMarkdown(): string {
  return readFileSync(SKILL_SOURCE, 'utf8')
}

/** Writes the Claude Code skill under `root` (a home for user scope, a repository for repo scope); returns its path and whether it changed. */
export function installClaudeSkill(root: string): { path: string; changed: boolean } {
  const path = claudeSkillPath(root)
  const text = claudeSkillText()
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return { path, changed: false }
  mkdirSync(dirname(path), { recursive: true })
  writeFileAtomic.sync(path, text, { mode: 0o644 })
  return { path, changed: true }
}

const claudeSkillPath = (root: string): string => join(root, '.claude', 'skills', 'svc-false-positive', 'SKILL.md')
const claudeSkillText = (): string => FRONT_MATTER + skillMarkdown()

export type SkillRemoval = { path: string; removed: true } | { path: string; removed: false; reason: string }

/**
 * Removes the Claude Code skill svc installed under `root` (uninstall), or nothing when there is none. A file
 * that differs from the text svc writes was edited (or came from another svc version): it is left in place and
 * named, since deleting someone's edits is not "undoing what svc wrote". Its directory goes only when empty.
 */
export function removeClaudeSkill(root: string, dryRun = false): SkillRemoval | undefined {
  const path = claudeSkillPath(root)
  if (!existsSync(path)) return undefined
  if (readFileSync(path, 'utf8') !== claudeSkillText())
    return { path, removed: false, reason: 'it differs from the skill svc installs (edited, or from another svc version); remove it by hand if you no longer want it' }
  if (dryRun) return { path, removed: false, reason: 'dry run' }
  unlinkSync(path)
  const dir = dirname(path)
  if (readdirSync(dir).length === 0) rmdirSync(dir)
  return { path, removed: true }
}
