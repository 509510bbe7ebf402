/**
 * tree-sitter grammars for the inline code of the common interpreters (Python, JavaScript, TypeScript,
 * Ruby). Perl, PHP, Lua and the rest have no grammar on the npm registry that ships a WebAssembly build, so
 * their code is read with the string heuristics of inline-code.ts.
 * Each grammar is loaded the first time code of its language is parsed, synchronously (Language.loadSync: a
 * few ms, once per process), so the analysis stays synchronous and sees the same grammar as an eager load:
 * the four cost ~9 MiB of an idle daemon (Ruby's alone ~6), and most daemons never see some of them.
 * The daemon compiles their WebAssembly in the background after it starts (precompileGrammars:
 * WebAssembly.compile, off the main thread), so a first parse only instantiates it.
 */
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter'

/** Languages with a real grammar. */
export type CodeLanguage = 'python' | 'javascript' | 'typescript' | 'ruby'

/** Parses code of one language; undefined when the parse needed more than `steps` progress reports. */
export interface CodeParsers {
  parse(language: CodeLanguage, source: string, steps: number): Tree | undefined
}

export type { Node as CodeNode }

type WasmModule = Parameters<typeof Language.loadSync>[0]
/** Node's WebAssembly global (the project's TypeScript libs do not declare it): the two compiles used here. */
declare const WebAssembly: { Module: new (bytes: Uint8Array) => WasmModule; compile(bytes: Uint8Array): Promise<WasmModule> }

const WASM: Readonly<Record<CodeLanguage, string>> = {
  python: 'tree-sitter-python/tree-sitter-python.wasm',
  javascript: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
  typescript: 'tree-sitter-typescript/tree-sitter-typescript.wasm',
  ruby: 'tree-sitter-ruby/tree-sitter-ruby.wasm',
}

const require = createRequire(import.meta.url)
/** Compiled grammars (immutable, shared by every engine of the process). */
const compiled = new Map<CodeLanguage, WasmModule>()

/** Compiles every grammar not compiled yet, one at a time and off the main thread. */
export async function precompileGrammars(): Promise<void> {
  for (const language of Object.keys(WASM) as CodeLanguage[]) {
    if (!compiled.has(language)) compiled.set(language, await WebAssembly.compile(await readFile(require.resolve(WASM[language]))))
  }
}

/**
 * The four grammars' parsers, each loaded on its first parse (the web-tree-sitter runtime must be initialised:
 * loadBashParser does it). Every grammar file is found now, so a missing one still stops the daemon at start.
 */
export async function loadCodeParsers(): Promise<CodeParsers> {
  const files = Object.fromEntries(Object.entries(WASM).map(([language, file]) => [language, require.resolve(file)])) as Record<CodeLanguage, string>
  const parsers = new Map<CodeLanguage, Parser>()
  const parserFor = (language: CodeLanguage): Parser => {
    let parser = parsers.get(language)
    if (parser === undefined) {
      parser = new Parser()
      let module = compiled.get(language)
      if (module === undefined) compiled.set(language, (module = new WebAssembly.Module(readFileSync(files[language]))))
      parser.setLanguage(Language.loadSync(module))
      parsers.set(language, parser)
    }
    return parser
  }
  return {
    parse(language, source, steps) {
      const parser = parserFor(language)
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
