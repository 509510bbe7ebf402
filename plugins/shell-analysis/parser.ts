/**
 * Loads the tree-sitter bash grammar (WebAssembly). Loading is async and happens once per engine in the
 * `initialize` hook; parsing afterwards is synchronous.
 */
import { createRequire } from 'node:module'
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter'

export type { Node as SyntaxNode, Tree as SyntaxTree }

/** A ready-to-use bash parser. `parse` returns undefined when the deadline passed mid-parse. */
export interface BashParser {
  parse(source: string, deadline: number): Tree | undefined
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
    parse(source, deadline) {
      parser.reset()
      const tree = parser.parse(source, null, {
        // Returning true cancels the parse (the .d.ts types the callback as void; the runtime honours the result).
        progressCallback: (() => performance.now() > deadline) as unknown as () => void,
      })
      return tree ?? undefined
    },
  }
}
