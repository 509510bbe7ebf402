/**
 * Loads the tree-sitter bash grammar (WebAssembly). Loading is async and happens once per engine in the
 * `initialize` hook; parsing afterwards is synchronous.
 */
import { createRequire } from 'node:module'
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter'

export type { Node as SyntaxNode, Tree as SyntaxTree }

/**
 * A ready-to-use bash parser. `parse` spends at most `steps` of tree-sitter's progress reports (a count of
 * parser operations, not a clock, so the same text always gets the same answer) and returns how many it used;
 * `tree` is undefined when the text needed more.
 */
export interface BashParser {
  parse(source: string, steps: number): { tree?: Tree; used: number }
}

let runtimeReady: Promise<void> | undefined

/** Loads the web-tree-sitter runtime (once per process: the Wasm module is immutable) and the bash grammar. */
export async function loadBashParser(): Promise<BashParser> {
  runtimeReady ??= Parser.init()
  await runtimeReady
  const require = createRequire(import.meta.url)
  const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'))
  const parser = new Parser()
  parser.setLanguage(language)
  return {
    parse(source, steps) {
      parser.reset()
      let used = 0
      const tree = parser.parse(source, null, {
        // Returning true cancels the parse (the .d.ts types the callback as void; the runtime honours the result).
        progressCallback: (() => ++used > steps) as unknown as () => void,
      })
      return tree ? { tree, used } : { used }
    },
  }
}
