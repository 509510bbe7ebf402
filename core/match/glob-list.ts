/**
 * A list of path globs as one test. Most of a protection list's globs end in a literal file name (`.npmrc`,
 * `settings.json`): a path is asked only of those ending in its own last segment (one map lookup) and of the
 * rest (a `/**` tree, a `*.pem`), so it meets a handful of a list's globs, not all of them.
 */
import { type Glob, isLiteralGlob } from './glob.ts'

export function globList(globs: readonly Glob[], caseInsensitive: boolean): Glob {
  const byName = new Map<string, Glob[]>()
  const rest: Glob[] = []
  for (const glob of globs) {
    const name = glob.source.slice(glob.source.lastIndexOf('/') + 1)
    // Only a path ending in `/name` (or `name` itself) can match, unless braces span the slash or an `x**/name`
    // lets `**/` match nothing after a non-slash (`(?:.*/)?`), or case folds.
    const spans = glob.source.includes('{') || /[^/]\*\*\/[^/]*$/.test(glob.source)
    if (caseInsensitive || name === '' || !isLiteralGlob(name) || spans) rest.push(glob)
    else (byName.get(name) ?? byName.set(name, []).get(name)!).push(glob)
  }
  return {
    source: globs.map((g) => g.source).join(', '),
    test: (value) => byName.get(value.slice(value.lastIndexOf('/') + 1))?.some((g) => g.test(value)) === true || rest.some((g) => g.test(value)),
  }
}
