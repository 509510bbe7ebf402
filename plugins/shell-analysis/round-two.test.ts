/**
 * Unit tests of the round-two pieces that the corpus exercises only through the engine: here-doc inlining,
 * keystrokes with line editing, and inline code read with real grammars.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { analyseCode } from './code-analysis.ts'
import { loadCodeParsers, type CodeParsers } from './code-parsers.ts'
import { inlineHeredocs } from './heredocs.ts'
import { loadBashParser } from './parser.ts'
import { TerminalLines } from './terminal.ts'

describe('here-docs read as bash reads them', () => {
  it('turns each here-doc into a redirection with the same content, whatever follows on its line', () => {
    expect(inlineHeredocs("cat > x.sh <<'EOF' && ./x.sh\nrm -rf ~\nEOF")).toBe("cat > x.sh < <(printf '%s\\n' 'rm -rf ~') && ./x.sh\n")
    expect(inlineHeredocs('cat > a <<A; cat > b <<B\n1\nA\n2\nB\necho done')).toBe('cat > a < <(printf \'%s\\n\' "1"); cat > b < <(printf \'%s\\n\' "2")\necho done')
  })

  it('keeps quoting semantics: a quoted delimiter is literal, an unquoted one expands', () => {
    expect(inlineHeredocs("sh <<'E'\necho \"$HOME\" 'x'\nE")).toBe("sh < <(printf '%s\\n' 'echo \"$HOME\" '\\''x'\\''')\n")
    expect(inlineHeredocs('sh <<E\necho "$HOME" \\"q\\"\nE')).toBe('sh < <(printf \'%s\\n\' "echo \\"$HOME\\" \\\\\\"q\\\\\\"")\n')
  })

  it('strips leading tabs for <<- and leaves arithmetic shifts alone', () => {
    expect(inlineHeredocs('cat <<-E\n\tx\n\tE')).toBe('cat < <(printf \'%s\\n\' "x")\n')
    expect(inlineHeredocs('echo $((1 << 3))')).toBe('echo $((1 << 3))')
  })

  it('rewrites read-write redirections tree-sitter cannot parse', () => {
    expect(inlineHeredocs('exec 3<>f')).toBe('exec 3<f 3>>f')
  })
})

describe('terminal input as keystrokes', () => {
  it('completes lines on Enter and edits them with Ctrl-U, Ctrl-W, DEL and cursor keys', () => {
    const t = new TerminalLines()
    expect(t.type('a', 'ls\u0015rm -rf ~\r').lines).toEqual(['rm -rf ~'])
    expect(t.type('a', 'git push x\u0017--force\r').lines).toEqual(['git push --force'])
    expect(t.type('a', 'rm -rf ~/x\u007f\u007f\r').lines).toEqual(['rm -rf ~'])
    expect(t.type('a', 'm -rf ~\u0001r\r').lines).toEqual(['rm -rf ~'])
    expect(t.type('a', 'abc\u001b[D\u001b[DX\n').lines).toEqual(['aXbc'])
    expect(t.type('a', 'rm -rf ~\u0003ls\r').lines).toEqual(['ls'])
  })

  it('keeps a partial line per terminal until Enter', () => {
    const t = new TerminalLines()
    expect(t.type('one', 'rm -rf ').lines).toEqual([])
    expect(t.type('two', 'ls\n').lines).toEqual(['ls'])
    expect(t.type('one', '~\r')).toEqual({ lines: ['rm -rf ~'], unknownKeys: false })
  })

  it('reports keys whose effect cannot be known', () => {
    expect(new TerminalLines().type('a', 'rm -rf ~/.ss\t\r').unknownKeys).toBe(true)
    expect(new TerminalLines().type('a', '\u001b[A\r').unknownKeys).toBe(true)
  })
})

describe('inline code read with grammars', () => {
  let parsers: CodeParsers
  beforeAll(async () => {
    await loadBashParser()
    parsers = await loadCodeParsers()
  })
  const run = (language: 'python' | 'javascript' | 'typescript' | 'ruby', code: string) => analyseCode(parsers, language, code, 1024)!

  it('computes commands from concatenation, f-strings, template strings and lists', () => {
    expect(run('python', 'import os\nh = os.path.expanduser("~")\nos.system("rm -rf " + h)').commands).toEqual(['rm -rf ~'])
    expect(run('python', 'import subprocess as sp\nsp.run(["git", "push", "--force"])').commands).toEqual(['git push --force'])
    expect(run('javascript', 'const {spawnSync} = require("child_process"); spawnSync("rm", ["-rf", process.env.HOME])').commands).toEqual(['rm -rf ~'])
    expect(run('ruby', 'system("rm -rf " + Dir.home)').commands).toEqual(['rm -rf ~'])
  })

  it('finds deletes and connections by callee, with arithmetic', () => {
    expect(run('python', 'import shutil, os\nshutil.rmtree(os.sep)').deletes).toEqual(['/'])
    expect(run('javascript', 'require("fs").rmSync(require("os").homedir(), {recursive: true})').deletes).toEqual(['~'])
    expect(run('python', 'import socket\ns = socket.socket()\ns.connect(("127.0.0.1", 7000+878))').urls).toEqual(['tcp://127.0.0.1:7878'])
    expect(run('javascript', 'fetch(`http://localhost:${7000+878}/v1/mode`)').urls).toEqual(['http://localhost:7878/v1/mode'])
  })

  it('flags dangerous calls whose arguments cannot be computed, and nothing else', () => {
    expect(run('python', 'import subprocess, sys\nsubprocess.run(sys.argv[1], shell=True)').unknown).toBe(true)
    expect(run('ruby', 'system(ARGV[0])').unknown).toBe(true)
    expect(run('python', 'import json, sys\nprint(json.load(sys.stdin)["name"])')).toEqual({ commands: [], deletes: [], paths: [], urls: [], evals: [], unknown: false })
    expect(run('typescript', 'const x: number = 1 + 2; console.log(x)').unknown).toBe(false)
  })
})

describe('code that runs code', () => {
  let parsers: CodeParsers
  beforeAll(async () => {
    parsers = await loadCodeParsers()
  })
  const findings = (language: 'python' | 'javascript' | 'ruby', code: string) => analyseCode(parsers, language, code, 1024)!

  it('analyses a literal handed to eval/exec/Function as code of the same language', () => {
    expect(findings('python', `exec("import os; os.system('rm -rf ~')")`).evals).toEqual(["import os; os.system('rm -rf ~')"])
    expect(findings('javascript', `new Function("require('child_process').execSync('id')")()`).evals).toHaveLength(1)
    expect(findings('javascript', `setTimeout("process.exit(1)", 10)`).evals).toEqual(['process.exit(1)'])
    expect(findings('javascript', `setTimeout(() => process.exit(1), 10)`).evals).toEqual([])
  })

  it('reports code computed at run time, spawn functions handed on, and names looked up at run time as unknown', () => {
    for (const [language, code] of [
      ['python', "exec(''.join(map(chr, [105, 109])))"],
      ['python', 'import sys; eval(sys.argv[1])'],
      ['python', "import os as o; f = o.system; f('ls')"],
      ['python', "getattr(__import__('os'), 'sys' + 'tem')('ls')"],
      ['python', "import subprocess; list(map(subprocess.call, ['ls']))"],
      ['javascript', 'eval(process.argv[1])'],
      ['javascript', "const vm = require('vm'); vm.runInNewContext(process.argv[2])"],
      ['ruby', 'eval(ARGV[0])'],
      ['ruby', 'Kernel.send(:system, "ls")'],
    ] as const) {
      expect(findings(language, code).unknown, code).toBe(true)
    }
    expect(findings('python', "getattr(obj, 'name', None)").unknown).toBe(false)
    // Ordinary dynamic code: a computed attribute of the program's own objects, a plugin module imported by name.
    expect(findings('python', 'import sys\nclass A:\n  def run(self): pass\ngetattr(A(), sys.argv[1])()').unknown).toBe(false)
    expect(findings('python', 'import importlib, sys\nimportlib.import_module(sys.argv[1]).main()').unknown).toBe(false)
    expect(findings('python', 'import os, sys\ngetattr(os, sys.argv[1])("ls")').unknown).toBe(true)
    expect(findings('ruby', 'send(ARGV[0], "ls")').unknown).toBe(true)
    expect(findings('javascript', "/a/.exec('abc'); JSON.parse('{}')").unknown).toBe(false)
  })
})
