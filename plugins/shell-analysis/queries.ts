/**
 * What database clients run, wherever they take it from: options (`psql -c`, `mysql -e`, `mongosh --eval`),
 * operands (`sqlite3 db 'SQL'`, `redis-cli FLUSHALL`, `bq query 'SQL'`), files (`psql -f x.sql`, `< x.sql`,
 * `\i x.sql`, `.read x.sql`, `source x.sql`), here-docs and stdin, also behind `docker exec`/`kubectl exec`.
 * Each statement is recorded as a command of a pseudo-program gates can match like any other:
 * `sql` (words upper-cased, quoted text kept: `DROP TABLE USERS`), `redis` (`FLUSHALL`) and `mongodb`
 * (the method called, then `{}` when its filter is empty: `deleteMany {}`).
 */
import { contentOf } from './files.ts'
import type { Invocation } from './invocation.ts'
import type { AnalysisState } from './state.ts'

type Language = 'sql' | 'redis' | 'mongodb'

interface Client {
  readonly language: Language
  /** Options whose value is code (`-c SQL`, `--command=SQL`, `-cSQL` for one-letter ones). */
  readonly code: readonly string[]
  /** Options whose value is a file of code. */
  readonly files?: readonly string[]
  /** Options that take a value which is not code (so the value is not an operand). */
  readonly values?: readonly string[]
  /** Which operands are code: all of them, or all after the first (the database file), or none. */
  readonly operands?: 'all' | 'after-first'
  /** A subcommand that must come first (`cockroach sql`, `bq query`). */
  readonly subcommand?: string
}

const SQL_VALUES = [
  '-h',
  '--host',
  '-p',
  '--port',
  '-U',
  '-u',
  '--user',
  '--username',
  '-d',
  '-D',
  '--dbname',
  '--database',
  '-S',
  '--socket',
  '-P',
  '--pset',
  '-v',
  '--set',
  '--variable',
  '-o',
  '--output',
  '-L',
  '--log-file',
  '-F',
  '-R',
  '-T',
]
const CLIENTS: Readonly<Record<string, Client>> = {
  psql: { language: 'sql', code: ['-c', '--command'], files: ['-f', '--file'], values: SQL_VALUES },
  usql: { language: 'sql', code: ['-c', '--command'], files: ['-f', '--file'], values: SQL_VALUES },
  mysql: { language: 'sql', code: ['-e', '--execute'], values: SQL_VALUES },
  mariadb: { language: 'sql', code: ['-e', '--execute'], values: SQL_VALUES },
  mycli: { language: 'sql', code: ['-e', '--execute'], values: SQL_VALUES },
  sqlite3: {
    language: 'sql',
    code: ['-cmd'],
    values: ['-separator', '-nullvalue', '-newline', '-init', '-vfs', '-maxsize', '-pagecache', '-lookaside', '-mmap'],
    operands: 'after-first',
  },
  duckdb: { language: 'sql', code: ['-c', '-cmd', '-s'], values: ['-separator', '-nullvalue', '-init'], operands: 'after-first' },
  'clickhouse-client': { language: 'sql', code: ['-q', '--query'], files: ['--queries-file'], values: SQL_VALUES },
  sqlcmd: { language: 'sql', code: ['-Q', '-q'], files: ['-i'], values: ['-S', '-U', '-P', '-d', '-o', '-s', '-W'] },
  snowsql: {
    language: 'sql',
    code: ['-q', '--query'],
    files: ['-f', '--filename'],
    values: ['-a', '--accountname', '-u', '--username', '-d', '--dbname', '-s', '--schemaname', '-w', '--warehouse', '-r', '--rolename', '-c', '--connection'],
  },
  cockroach: {
    language: 'sql',
    subcommand: 'sql',
    code: ['-e', '--execute'],
    files: ['-f', '--file'],
    values: ['--url', '--host', '--user', '-u', '--database', '-d', '--certs-dir'],
  },
  cqlsh: { language: 'sql', code: ['-e', '--execute'], files: ['-f', '--file'], values: ['-u', '--username', '-p', '--password', '-k', '--keyspace', '--cqlshrc'] },
  bq: { language: 'sql', subcommand: 'query', code: [], values: ['--project_id', '--location', '--format', '--max_rows', '--parameter'], operands: 'all' },
  'redis-cli': {
    language: 'redis',
    code: [],
    values: ['-h', '-p', '-s', '-a', '-u', '-r', '-i', '-n', '-d', '-D', '--user', '--pass', '--cacert', '--cert', '--key', '--sni', '--pattern', '--count', '--eval'],
    operands: 'all',
  },
  mongosh: {
    language: 'mongodb',
    code: ['--eval'],
    files: ['--file', '-f'],
    values: ['--host', '--port', '-u', '--username', '-p', '--password', '--authenticationDatabase', '--tlsCAFile'],
    operands: 'all',
  },
  mongo: { language: 'mongodb', code: ['--eval'], values: ['--host', '--port', '-u', '--username', '-p', '--password', '--authenticationDatabase'], operands: 'all' },
}

/** `docker exec [opts] CONTAINER CMD...`, `docker compose exec SERVICE CMD...`, `kubectl exec POD -- CMD...`. */
const EXEC_VALUES = ['-e', '--env', '--env-file', '-u', '--user', '-w', '--workdir', '--detach-keys', '--index', '-c', '--container', '-n', '--namespace', '--context']

/** The command a container exec runs, or the argv itself. */
function innerArgv(argv: readonly string[]): readonly string[] {
  const program = argv[0]?.split('/').pop() ?? ''
  if (!['docker', 'podman', 'nerdctl', 'kubectl', 'oc', 'docker-compose'].includes(program)) return argv
  let i = 1
  if (argv[i] === 'compose' || argv[i] === 'container') i++
  if (argv[i] !== 'exec') return argv
  const dashes = argv.indexOf('--', i)
  if (dashes !== -1) return argv.slice(dashes + 1)
  let target = false
  for (i++; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg.startsWith('-')) {
      if (EXEC_VALUES.includes(arg)) i++
      continue
    }
    if (target) return argv.slice(i)
    target = true
  }
  return []
}

const MAX_SHAPES = 64
const MAX_INCLUDES = 8

/** Records the statements a database client runs (see the file comment). */
export function recordQueries(st: AnalysisState, inv: Invocation): void {
  const argv = innerArgv(inv.argv)
  const program = argv[0]?.split('/').pop() ?? ''
  const client = Object.hasOwn(CLIENTS, program) ? CLIENTS[program]! : undefined
  if (!client) return
  const texts: string[] = []
  const read = (file: string | undefined): void => {
    const text = file === undefined ? undefined : contentOf(st, inv.scope, file)
    if (text !== undefined) texts.push(text)
  }
  const operands: string[] = []
  let i = 1
  if (client.subcommand !== undefined) {
    while (i < argv.length && argv[i]!.startsWith('-')) i++
    if (argv[i] !== client.subcommand) return
    i++
  }
  for (; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      operands.push(...argv.slice(i + 1))
      break
    }
    const option = optionValue(arg, argv[i + 1], client.code)
    const file = optionValue(arg, argv[i + 1], client.files ?? [])
    if (option) {
      texts.push(option.value)
      i += option.next
    } else if (file) {
      read(file.value)
      i += file.next
    } else if (arg.startsWith('-') && arg.length > 1) {
      if ((client.values ?? []).includes(arg)) i++
    } else operands.push(arg)
  }
  if (client.operands === 'all') {
    if (client.language === 'redis') texts.push(operands.join(' '))
    else if (client.language === 'mongodb') for (const o of operands.filter((o) => o.endsWith('.js'))) read(o)
    else texts.push(...operands)
  } else if (client.operands === 'after-first') texts.push(...operands.slice(1))
  const stdin = inv.stdin?.text ?? (inv.stdin?.path !== undefined ? contentOf(st, inv.scope, inv.stdin.path) : undefined)
  if (stdin !== undefined) texts.push(stdin)
  const via = [...inv.via, program]
  const seen = new Set<string>()
  const record = (words: string[]): void => {
    const key = words.slice(0, 3).join(' ') + (words.includes('WHERE') ? ' +where' : '') + (words.includes('DROP') ? ' +drop' : '')
    if (words.length === 0 || seen.has(key) || seen.size >= MAX_SHAPES) return
    seen.add(key)
    const full = [client.language, ...words]
    st.record({ program: client.language, argv: full, text: full.join(' '), via })
  }
  for (const text of withIncludes(st, inv, texts, client.language)) {
    if (client.language === 'sql') for (const statement of sqlStatements(text)) record(statement)
    else if (client.language === 'redis') for (const line of text.split('\n')) record(redisWords(line))
    else for (const call of mongoCalls(text)) record(call)
  }
}

/** `-c V`, `-cV`, `--command V`, `--command=V`: the value and how many extra arguments it took. */
function optionValue(arg: string, next: string | undefined, names: readonly string[]): { value: string; next: number } | undefined {
  for (const name of names) {
    if (arg === name && next !== undefined) return { value: next, next: 1 }
    if (name.startsWith('--') && arg.startsWith(`${name}=`)) return { value: arg.slice(name.length + 1), next: 0 }
    if (/^-[A-Za-z]$/.test(name) && arg.startsWith(name) && arg.length > 2 && !arg.startsWith('--')) return { value: arg.slice(2), next: 0 }
  }
  return undefined
}

/** The texts with the files they include (`\i f`, `\ir f`, `.read f`, `source f`, `\. f`, mongosh `load('f')`) appended. */
function withIncludes(st: AnalysisState, inv: Invocation, texts: readonly string[], language: Language): string[] {
  const out = [...texts]
  const pattern = language === 'mongodb' ? /\bload\s*\(\s*['"]([^'"]+)['"]/g : /^\s*(?:\\i|\\ir|\\include|\\include_relative|\\\.|\.read|source)\s+(\S+)/gim
  for (let k = 0; k < out.length && out.length < MAX_INCLUDES; k++) {
    for (const m of out[k]!.matchAll(pattern)) {
      const text = contentOf(st, inv.scope, m[1]!.replace(/^['"]|['"];?$|;$/g, ''))
      if (text !== undefined && out.length < MAX_INCLUDES) out.push(text)
    }
  }
  return out
}

const SQL_TOKEN = /'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|\$(\w*)\$[\s\S]*?\$\1\$|--[^\n]*|\/\*[\s\S]*?\*\/|;|[(),]|[^\s;'"`(),]+/g

/** SQL statements as words: unquoted words upper-cased, comments and client meta-commands (`\x`, `.mode`) dropped. */
export function sqlStatements(text: string): string[][] {
  const code = text
    .split('\n')
    .filter((line) => !/^\s*[\\.]/.test(line))
    .join('\n')
  const out: string[][] = []
  let words: string[] = []
  for (const m of code.matchAll(SQL_TOKEN)) {
    const token = m[0]
    if (token.startsWith('--') || token.startsWith('/*') || token === '(' || token === ')' || token === ',') continue
    if (token === ';') {
      if (words.length > 0) out.push(words)
      words = []
    } else words.push(/^['"`$]/.test(token) ? token : token.toUpperCase())
  }
  if (words.length > 0) out.push(words)
  return out
}

/** One redis-cli command line as words, the command name upper-cased. */
function redisWords(line: string): string[] {
  const words = line.trim().split(/\s+/).filter(Boolean)
  return words.length === 0 ? [] : [words[0]!.toUpperCase(), ...words.slice(1)]
}

/** Methods a mongosh script calls: `db.users.drop()` → `drop`, `deleteMany({})` → `deleteMany {}`. */
function mongoCalls(text: string): string[][] {
  return [...text.matchAll(/\.\s*([A-Za-z_$][\w$]*)\s*\(\s*(\{\s*\})?/g)].map((m) => (m[2] !== undefined ? [m[1]!, '{}'] : [m[1]!]))
}
