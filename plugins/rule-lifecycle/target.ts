/**
 * Where a false-positive replacement is written (SPEC "False-positive rules" 2): `auto` is `.svc.yaml` at the
 * git root of the event's cwd when there is one, else the user policy; `repo` and `user` on request. A gate
 * from a file svc must not edit (shipped packs, registry rules, another layer's file) is disabled through
 * the target file by a sealed marker; a repo gate can only be replaced in its own repo file.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import type { CompiledGate, Engine, LayerName, Mode } from '../../core/index.ts'
import { refusal } from './case-event.ts'

export type TargetChoice = 'auto' | 'repo' | 'user'
export const TARGET_CHOICES: readonly TargetChoice[] = ['auto', 'repo', 'user']

export interface TargetFile {
  readonly choice: TargetChoice
  readonly layer: LayerName
  readonly source: string
  readonly path: string
  readonly mode: Mode
}

/** Resolves the target file for a case, refusing a missing repo, an unwritable directory or a layer mismatch. */
export function resolveTarget(engine: Engine, choice: TargetChoice, cwd: string | null, gate: CompiledGate, now: number): TargetFile {
  const repo = engine.policy.repoPolicy(cwd ?? undefined, now)
  const user = engine.policy.files().find((f) => f.layer === 'user')
  let target: TargetFile
  if (choice === 'repo' || (choice === 'auto' && repo)) {
    if (!repo)
      throw refusal(
        422,
        'target_not_found',
        `the event's cwd ${cwd ?? '(none)'} is not inside a git repository: there is no repo policy file (.svc.yaml) to write; use --target user`,
      )
    target = { choice, layer: 'repo', source: repo.src.source, path: repo.src.path, mode: repo.good?.mode ?? 'firewall' }
  } else {
    if (!user) throw refusal(422, 'target_not_found', 'the daemon has no user policy file')
    target = { choice, layer: 'user', source: user.source, path: user.path, mode: user.mode ?? 'firewall' }
  }
  if (gate.layer === 'repo' && gate.loc.file !== target.path) {
    throw refusal(422, 'target_mismatch', `gate "${gate.id}" lives in ${gate.loc.file}; a repo gate can only be replaced in its own repo file (target repo)`)
  }
  try {
    const exists = existsSync(target.path)
    if (exists && !statSync(target.path).isFile()) throw new Error('not a regular file')
    accessSync(exists ? target.path : dirname(target.path), constants.W_OK)
  } catch {
    throw refusal(422, 'target_unwritable', `the target policy file ${target.path} cannot be written`)
  }
  return target
}
