/**
 * tree-sitter grammars for the inline code of the common interpreters (Python, JavaScript, TypeScript,
 * Ruby), loaded once with the bash grammar. Perl, PHP, Lua and the rest have no grammar on the npm registry
 * that ships a WebAssembly build, so their code is read with the string heuristics of inline-code.ts.
 */
import { createRequire } from 'node:module'
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter'

/** Languages with a real grammar. */
export type CodeLanguage = 'python' | 'javascript' | 'typescript' | 'ruby'

/** Parses code of one language; undefined when the parse needed more than `steps` progress reports. */
export interface CodeParsers {
  parse(language: CodeLanguage, source: string, steps: number): Tree | undefined
}

export type { Node as CodeNode }

const WASM: Readonly<Record<CodeLanguage, string>> = {
  python: 'tree-sitter-python/tree-sitter-python.wasm',
  javascript: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
  typescript: 'tree-sitter-typescript/tree-sitter-typescript.wasm',
  ruby: 'tree-sitter-ruby/tree-sitter-ruby.wasm',
}

/** Loads the four grammars (the web-tree-sitter runtime must be initialised: loadBashParser does it). */
export async function loadCodeParsers(): Promise<CodeParsers> {
  const require = createRequire(import.meta.url)
  const parsers = new Map<CodeLanguage, Parser>()
  for (const language of Object.keys(WASM) as CodeLanguage[]) {
    const parser = new Parser()
    parser.setLanguage(await Language.load(require.resolve(WASM[language])))
    parsers.set(language, parser)
  }
  return {
    parse(language, source, steps) {
      const parser = parsers.get(language)!
      parser.reset()
      let used = 0
      const tree = parser.parse(source, null, { progressCallback: (() => ++used > steps) as unknown as () => void })
      return tree ?? undefined
    },
  }
}

/** The grammar for an interpreter's program name, if there is one. */
export function languageOf(program: string): CodeLanguage | undefined {
  if (/^(python[\d.]*|pypy3?|pytest|py\.test)$/.test(program)) return 'python'
  if (/^(node(js)?[\d.]*|bun|deno)$/.test(program)) return 'javascript'
  if (/^(tsx|ts-node(-esm)?|esno|vite-node)$/.test(program)) return 'typescript'
  if (/^(ruby[\d.]*|irb|jruby)$/.test(program)) return 'ruby'
  return undefined
}
