/**
 * Before and after in one run: runs one bench script of this checkout and of another (a `git worktree` of main's
 * commit) in turns, so both see the same machine load, and prints each run's output under its label.
 * Run: npm run bench:alternate -- <bench/…/run.ts> <other checkout> [rounds, default 2]
 *   e.g. git worktree add /tmp/svc-main main && ln -s $PWD/node_modules /tmp/svc-main/node_modules
 *        npm run bench:alternate -- bench/engine/run.ts /tmp/svc-main
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../cli/paths.ts'

const [script, other, roundsArg] = process.argv.slice(2)
if (!script || !other) {
  console.error('usage: npm run bench:alternate -- <bench script, e.g. bench/engine/run.ts> <other checkout> [rounds]')
  process.exit(2)
}
const rounds = Number(roundsArg ?? 2)
const checkouts = [
  ['other', other],
  ['this', PROJECT_ROOT],
] as const
for (const [, dir] of checkouts) {
  if (!existsSync(join(dir, script))) {
    console.error(`${join(dir, script)} does not exist`)
    process.exit(2)
  }
}
for (let round = 1; round <= rounds; round++) {
  // Swap the order every round: neither side always runs first (warmer caches, a quieter minute).
  for (const [label, dir] of round % 2 === 1 ? checkouts : [...checkouts].reverse()) {
    const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    console.log(`--- round ${round}, ${label} (${dir})${r.status === 0 ? '' : `, exit ${r.status}`}`)
    process.stdout.write(r.stdout)
  }
}
