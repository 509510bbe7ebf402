/**
 * The protected set (./set.ts) as policy lists: the shipped packs name `$SVC_SECRET_KEYS`,
 * `$SVC_CREDENTIALS`, `$SVC_AUTORUN_FILES`, … and the gate compiler splices these items in, so the gates and the
 * sandbox settings `svc install --sandbox` writes come from one declaration (and the user's SVC_PROTECTED_READ/WRITE).
 * @module
 */
import { addToPolicyList, type EnginePlugin } from '../../core/index.ts'
import { protectedSet } from './set.ts'

const plugin: EnginePlugin = {
  name: 'feature:protected-set',
  apply({ registry, env }) {
    for (const list of protectedSet(env)) addToPolicyList(registry, list.name, list.globs)
  },
}

export default plugin

export { protectedSet } from './set.ts'
