/** Schema fragments shared by several routes. */

/** A directory named by an API caller: absolute (the daemon's own cwd means nothing to it), no NUL byte. */
export const ABSOLUTE_PATH = { type: 'string', minLength: 1, maxLength: 4096, pattern: '^/[^\\u0000]*$', description: 'absolute path' } as const
