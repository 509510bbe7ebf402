/**
 * `npm pack` hooks: prepack records the commit being packed in cli/build-info.json, so an installed svc can
 * name it without git; postpack removes the file from the checkout again (`node scripts/build-info.ts clean`).
 */
import { execFileSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { BUILD_INFO_FILE, gitCommit } from '../cli/version.ts'
import { PROJECT_ROOT } from '../cli/paths.ts'

if (process.argv[2] === 'clean') {
  rmSync(BUILD_INFO_FILE, { force: true })
} else {
  let commit = gitCommit(PROJECT_ROOT)
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim()
  } catch {
    // no git binary: the files-only reading above stands
  }
  writeFileSync(BUILD_INFO_FILE, `${JSON.stringify({ commit: commit ?? 'unknown' })}\n`)
}
