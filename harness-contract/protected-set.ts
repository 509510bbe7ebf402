/**
 * What svc protects, declared once for both layers (issue 27). Each list is a policy list the shipped packs name
 * (`path: ['$SVC_SECRET_KEYS']`; the gate compiler splices the items in, as it does `$SVC_HARNESS_FILES`), and
 * `svc install --sandbox` turns the same items into each harness's sandbox settings: `keep: 'read'` lists are
 * unreadable to the agent's commands, `keep: 'write'` lists unwritable. A path added here reaches both layers;
 * the user adds one with SVC_PROTECTED_READ / SVC_PROTECTED_WRITE. The lists themselves live in plugins/protected-set/.
 * Globs are path-gate globs (`~` the user's home, `**` any depth).
 */

/** One named list of the protected set. */
export interface ProtectedList {
  /** The policy-list name the packs use. */
  readonly name: string
  /** `read`: secrets the agent's commands must not read; `write`: files they must not change; `except`: carve-outs of another list. */
  readonly keep: 'read' | 'write' | 'except'
  readonly globs: readonly string[]
  /** For `except` lists: the list they carve out of. */
  readonly of?: string
  /** Items the sandbox layer leaves to the gate, with the reason (ordinary work writes them inside the workspace). */
  readonly gateOnly?: Readonly<Record<string, string>>
  /**
   * `**\/x` items whose copy at the project root the sandbox denies only when it exists, with why an absent one is
   * harmless there: sandbox-runtime stands an unreadable placeholder at every absent denied path in the workspace for
   * the length of each command, which `rg` trips over (test/sandbox-everyday.e2e.test.ts).
   */
  readonly rootIfPresent?: Readonly<Record<string, string>>
  /** Shown by `svc status` and the docs: what the list holds. */
  readonly what: string
  /** `env`: the items are environment variable names, not paths. */
  readonly kind?: 'env'
}

/** A variable name that says it holds a secret (`*_TOKEN`, `*_API_KEY`, `*SECRET*`, `*PASSWORD*`, `*_CREDENTIALS`). */
export const SECRET_ENV_NAME = /(^|_)(TOKEN|API_?KEY|SECRET|PASSWORD|PASSWD|PRIVATE_KEY|CREDENTIALS?|ACCESS_KEY)(_|$)/i
