/**
 * What a command does with some of its operands, beyond "touches this path": the destination of a copy is
 * written, not read (`cp .env.example .env`); an identity file or signing key is used to authenticate or sign,
 * and its bytes never leave the program (`ssh -i KEY`, `openssl req -key KEY`); `-o FILE` is an output. An
 * exemption covers exactly that operand, so `ssh host 'cat > k' < ~/.ssh/id_rsa` still reads the key.
 */

/** argv indexes by role. */
export interface OperandRoles {
  /** Used in place (authentication, signing): not a read, not a write. */
  readonly used: ReadonlySet<number>
  /** Written (created or overwritten), not read. */
  readonly written: ReadonlySet<number>
}

const COPIERS: ReadonlySet<string> = new Set(['cp', 'gcp', 'mv', 'gmv', 'install', 'ginstall', 'rsync', 'scp', 'ditto'])
/** Options whose value is an output file, for every program that is not listed as using them otherwise. */
const OUTPUT_OPTIONS: ReadonlySet<string> = new Set(['-o', '-out', '--out', '--output', '-keyout', '--keyout', '--keyfile', '--output-file', '-O'])
/** Programs where `-o`/`-O` means something else (an option string, a remote name). */
const OTHER_O: ReadonlySet<string> = new Set([
  'ssh',
  'scp',
  'sftp',
  'sshfs',
  'mount',
  'bash',
  'sh',
  'zsh',
  'set',
  'curl',
  'wget',
  'ps',
  'git',
  'xargs',
  'grep',
  'rg',
  'cut',
  'tar',
  'unzip',
  'zip',
  'python',
  'python3',
  'node',
  'mkfs',
])
/** openssl subcommands that print the key they read (those are reads). */
const OPENSSL_KEY_PRINTERS: ReadonlySet<string> = new Set(['rsa', 'pkey', 'ec', 'dsa', 'pkcs8', 'pkcs12', 'enc', 'base64', 'asn1parse', 'rsautl', 'pkeyutl'])
const OPENSSL_USED_KEYS: ReadonlySet<string> = new Set(['-key', '-signkey', '-CAkey', '-inkey', '-CA'])
/** openssl subcommands whose `-in` is a certificate or request (public material). */
const OPENSSL_CERT_INPUT: ReadonlySet<string> = new Set(['x509', 'req', 'crl', 'crl2pkcs7', 'verify', 'ca', 'ts'])
const IDENTITY_PROGRAMS: ReadonlySet<string> = new Set(['ssh', 'scp', 'sftp', 'sshfs', 'autossh', 'mosh'])

/** The roles of `argv`'s operands for `program`. */
export function operandRoles(program: string, argv: readonly string[]): OperandRoles {
  const used = new Set<number>()
  const written = new Set<number>()
  if (IDENTITY_PROGRAMS.has(program)) {
    argv.forEach((a, i) => {
      if (a === '-i' && i + 1 < argv.length) used.add(i + 1)
      else if (/^-i./.test(a)) used.add(i)
      else if (a === '-o' && /^IdentityFile[ =]/i.test(argv[i + 1] ?? '')) used.add(i + 1)
    })
  }
  if (program === 'openssl') {
    const sub = argv[1] ?? ''
    argv.forEach((a, i) => {
      if (i + 1 >= argv.length) return
      // `pkcs12 -export` packs the key into the output file; without -export it prints what it reads.
      const prints = OPENSSL_KEY_PRINTERS.has(sub) && !(sub === 'pkcs12' && argv.includes('-export'))
      if (OPENSSL_USED_KEYS.has(a) && !prints) used.add(i + 1)
      if (a === '-in' && (OPENSSL_CERT_INPUT.has(sub) || (sub === 'pkcs12' && argv.includes('-export')))) used.add(i + 1)
      if (a === '-out' || a === '-keyout') written.add(i + 1)
    })
  } else if (!OTHER_O.has(program)) {
    argv.forEach((a, i) => {
      if (i > 0 && OUTPUT_OPTIONS.has(a) && i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) written.add(i + 1)
    })
  }
  // `find ... -fprint FILE` (and -fprint0, -fprintf FILE FORMAT, -fls FILE) writes its listing to FILE.
  if (program === 'find') argv.forEach((a, i) => void (/^-f(print0?|printf|ls)$/.test(a) && i + 1 < argv.length && written.add(i + 1)))
  if (program === 'keytool' && argv.some((a) => /^-gen(keypair|key|seckey)$/.test(a))) {
    argv.forEach((a, i) => {
      if (a === '-keystore' && i + 1 < argv.length) written.add(i + 1)
    })
  }
  if (COPIERS.has(program)) {
    const target = argv.findIndex((a) => a === '-t' || a === '--target-directory')
    if (target > 0 && target + 1 < argv.length) written.add(target + 1)
    else {
      const operands = argv.map((a, i) => [a, i] as const).filter(([a, i]) => i > 0 && !a.startsWith('-') && !argv[i - 1]?.match(/^-[eS]$|^--rsh$|^--exclude$/))
      if (operands.length >= 2) written.add(operands[operands.length - 1]![1])
    }
  }
  // Downloads' output files: curl `-o F`/`--output F`, wget `-O F`/`--output-document F` (curl's -O and wget's -o mean otherwise).
  const downloadOutputs = program === 'curl' ? ['-o', '--output'] : program === 'wget' ? ['-O', '--output-document', '-o', '--output-file', '-a', '--append-output'] : []
  argv.forEach((a, i) => void (i > 0 && downloadOutputs.includes(a) && i + 1 < argv.length && argv[i + 1] !== '-' && written.add(i + 1)))
  return { used, written }
}

/** C compilers and linkers that write `a.out` when no `-o` names the output. */
const CC_DRIVERS = /^(?:cc|c\+\+|gcc|g\+\+|clang|clang\+\+|tcc|icc|icx|ld|(?:[\w.-]+-)?(?:gcc|g\+\+|clang|clang\+\+|cc))(?:-\d+(?:\.\d+)*)?$/

/**
 * Files a command writes without naming them: a C compiler's `a.out`, rustc's binary named after its source.
 * Running one later in the same command runs code the command built (compile-and-run), which svc cannot read.
 */
export function implicitOutputs(program: string, argv: readonly string[]): string[] {
  const args = argv.slice(1)
  if (args.some((a) => a === '-o' || /^-o./.test(a) || /^--?(?:version|help)$/.test(a))) return []
  if (CC_DRIVERS.test(program)) return args.some((a) => /^-(?:[cESM]|MM|fsyntax-only|###|dumpversion|dumpmachine|print-.*)$/.test(a)) ? [] : ['a.out']
  if (/^g?sed$/.test(program)) return sedWrites(argv)
  if (/^[gmn]?awk$/.test(program)) return awkWrites(argv)
  if (program === 'rustc') {
    const source = args.find((a) => a.endsWith('.rs'))
    return source === undefined || args.some((a) => a.startsWith('--emit') || a === '--crate-type' || a === '--print') ? [] : [source.replace(/^.*\//, '').replace(/\.rs$/, '')]
  }
  return []
}

/** sed's `w FILE` command and `s///w FILE` flag, in every script argument (`-e S`, `--expression=S`, or the first operand). */
function sedWrites(argv: readonly string[]): string[] {
  const scripts = argv.flatMap((a, i) => (argv[i - 1] === '-e' || argv[i - 1] === '--expression' ? [a] : a.startsWith('--expression=') ? [a.slice(13)] : []))
  if (scripts.length === 0 && !argv.some((a) => a === '-f' || a.startsWith('--file'))) {
    const first = argv.slice(1).findIndex((a, i) => !a.startsWith('-') && !['-e', '-f', '-l', '--line-length'].includes(argv[i] ?? ''))
    if (first !== -1) scripts.push(argv[first + 1]!)
  }
  return scripts.flatMap((s) =>
    s.split(/\n|;(?![^/]*\/[^/]*\/)/).flatMap((cmd) => {
      const m = /^\s*(?:\d+|\$|\/[^/]*\/)?(?:,\s*(?:\d+|\$|\/[^/]*\/))?\s*(?:w|s(.)(?:(?!\1).|\\.)*\1(?:(?!\1).|\\.)*\1[gpiImM0-9]*w)\s+(\S.*)$/s.exec(cmd)
      return m ? [m[2]!.trim()] : []
    }),
  )
}

/** awk's `print … > "FILE"` and `>> "FILE"` with a literal file name (a computed one is the program's own business). */
function awkWrites(argv: readonly string[]): string[] {
  const program = argv.slice(1).find((a, i) => !a.startsWith('-') && !['-F', '-v', '-f'].includes(argv[i] ?? ''))
  if (program === undefined) return []
  return [...program.matchAll(/\bprintf?\b[^;}>|]*>>?\s*"([^"]+)"/g)].map((m) => m[1]!)
}
