/**
 * What a policy bundle may hold (OPA's bundle layout with one root, `svc`): the daemon layer's files,
 * registry rules and the group file, plus `.manifest` and `.signatures.json`. Anything else is refused, so
 * a bundle cannot carry a user layer, a repo layer or a file svc would silently ignore.
 */

/** A bundle larger than this (compressed or not) is refused before it is unpacked further. */
export const MAX_BUNDLE_BYTES = 16 * 1024 * 1024

export class BundleError extends Error {
  /** The revision the bundle's manifest claims, when it could be read (unverified: for the record only). */
  claimedRevision?: number

  constructor(message: string) {
    super(message)
    this.name = 'BundleError'
  }
}

export const MANIFEST = '.manifest'
export const SIGNATURES = '.signatures.json'
/** The bundle's one root (`.manifest` `roots`). */
export const ROOT = 'svc'

const DAEMON_FILE = /^svc\/daemon\/[a-z0-9][a-z0-9._-]{0,99}\.yaml$/
const REGISTRY_RULE = /^svc\/registry\/[a-z0-9][a-z0-9._-]{0,99}\/rule\.yaml$/
const GROUP_FILE = 'svc/group-policy.yaml'

/** Why a file name may not be in a bundle, or undefined when it may. */
export function refusedName(name: string): string | undefined {
  if (name === MANIFEST || name === SIGNATURES) return undefined
  if (name.split('/').some((part) => part === '..' || part === '.' || part === '')) return `"${name}" is not a plain relative path`
  if (DAEMON_FILE.test(name) || REGISTRY_RULE.test(name) || name === GROUP_FILE) return undefined
  return `"${name}" is not a bundle policy file (svc/daemon/<name>.yaml, svc/registry/<id>/rule.yaml or svc/group-policy.yaml)`
}
