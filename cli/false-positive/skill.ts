/**
 * The agent skill for false positives: one harness-neutral markdown text (`skills/false-positive.md`), installed
 * for Claude Code as `.claude/skills/svc-false-positive/SKILL.md` (with the skill front matter) on request. The
 * skill only drafts and validates; applying stays the operator's (the self-protection pack denies it to agents).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { PROJECT_ROOT } from '../paths.ts'

export const SKILL_SOURCE = join(PROJECT_ROOT, 'skills', 'false-positive.md')
const FRONT_MATTER = '---\nname: svc-false-positive\ndescription: Use when svc denied a tool call you believe was a false positive. Drafts a narrow replacement gate from the case bundle and runs `svc false-positive validate`; applying is left to the user.\n---\n\n'

/** The harness-neutral skill text. */
export function skillMarkdown(): string {
  return readFileSync(SKILL_SOURCE, 'utf8')
}

/** Writes the Claude Code skill under `root` (a home for user scope, a repository for repo scope); returns its path and whether it changed. */
export function installClaudeSkill(root: string): { path: string; changed: boolean } {
  const path = join(root, '.claude', 'skills', 'svc-false-positive', 'SKILL.md')
  const text = FRONT_MATTER + skillMarkdown()
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return { path, changed: false }
  mkdirSync(dirname(path), { recursive: true })
  writeFileAtomic.sync(path, text, { mode: 0o644 })
  return { path, changed: true }
}
