/**
 * Looks inside inline interpreter code (`python -c`, `node -e`, `perl -e`, ...) for what it hands to a
 * shell, the files it names and the URLs it contacts. Heuristic by nature: it widens what gates see and
 * never hides anything the plain argv already shows.
 */

const EXEC_CALL =
  /(?:\bos\.system|\bos\.popen|\bsubprocess\.\w+|\bcommands\.getoutput|\bsystem|\bexecSync|\bexecFileSync|\bspawnSync|\bspawn|\bexec|\bpopen|\bshell_exec|\bpassthru|\bproc_open|\bPopen|\bcheck_output|\bcheck_call|\bIO\.popen|\bOpen3\.\w+|\bRuntime\.getRuntime\(\)\.exec|\bdo shell script|\bos\.execute|\bio\.popen)\s*\(?\s*(?:\[\s*)?/g
const STRING = /'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|`((?:[^`\\]|\\.)*)`/y
const SEPARATOR = /\s*[,+]\s*/y
const MAX_STRINGS = 16
/** Home directory APIs: `os.environ["HOME"]`, `os.getenv('HOME')`, `$ENV{HOME}`, `process.env.HOME`, `os.homedir()`, `Dir.home`, `Path.home()`. */
const HOME_API =
  /\benviron(?:\.get)?\s*[[(]\s*['"]HOME['"]|\bgetenv\s*\(\s*['"]HOME['"]|\$ENV\s*\{\s*['"]?HOME['"]?\s*\}|\benv\.HOME\b|\bENV\s*\[\s*['"]HOME['"]|\bhomedir\s*\(|\bDir\.home\b|\bPath\.home\s*\(|\$_SERVER\s*\[\s*['"]HOME['"]|\bexpanduser\s*\(\s*['"]~['"]|\bDeno\.env\.get\s*\(\s*['"]HOME['"]/

/** Shell command strings the code passes to system/exec-like calls, backticks, `qx()` and `%x()`. */
export function shellStringsInCode(code: string): string[] {
  const out: string[] = []
  for (const m of code.matchAll(EXEC_CALL)) {
    const items = stringSequence(code, (m.index ?? 0) + m[0].length)
    if (items.length > 0) out.push(items.join(' '))
    if (out.length >= MAX_STRINGS) break
  }
  for (const m of code.matchAll(/`([^`]+)`|\b(?:qx|%x)\s*(?:\(([^)]*)\)|\{([^}]*)\}|\[([^\]]*)\]|\/([^/]*)\/)/g)) out.push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? '')
  return out.slice(0, MAX_STRINGS).map(unescapeLiteral)
}

/** Consecutive string literals from `start`, separated by commas or `+` (a list or a concatenation). */
function stringSequence(code: string, start: number): string[] {
  const items: string[] = []
  let pos = start
  for (let n = 0; n < 64; n++) {
    STRING.lastIndex = pos
    const m = STRING.exec(code)
    if (!m) break
    items.push(m[1] ?? m[2] ?? m[3] ?? '')
    pos = STRING.lastIndex
    SEPARATOR.lastIndex = pos
    if (!SEPARATOR.exec(code)) break
    pos = SEPARATOR.lastIndex
  }
  return items
}

/** Calls that run a command or code, in languages svc has no grammar for (Perl, PHP, awk, Lua, R, Tcl). */
const RUNS_TEXT = /\b(?:eval|system|exec|popen|shell_exec|passthru|proc_open|spawn|os\.execute|io\.popen|assert|create_function|preg_replace)\b\s*/g

/**
 * True when such a call's argument is not a string literal (or literals joined by `,`/`+`) ending the call:
 * `eval $ARGV[0]`, `system("c"."url …")`, `system(x)`. A Perl block `eval { … }` runs code written in place.
 */
export function runsComputedText(code: string): boolean {
  for (const m of code.matchAll(RUNS_TEXT)) {
    let pos = (m.index ?? 0) + m[0].length
    if (code[pos] === '{') continue
    if (code[pos] === '(') pos = skipSpace(code, pos + 1)
    const before = pos
    STRING.lastIndex = pos
    if (!STRING.exec(code)) return true
    for (let n = 0; n < 64; n++) {
      STRING.lastIndex = pos
      if (!STRING.exec(code)) return pos !== before
      pos = skipSpace(code, STRING.lastIndex)
      if (code[pos] !== ',' && code[pos] !== '+') break
      pos = skipSpace(code, pos + 1)
    }
    if (pos < code.length && !/[);}\n]/.test(code[pos]!)) return true
  }
  return false
}

function skipSpace(code: string, pos: number): number {
  while (pos < code.length && /\s/.test(code[pos]!)) pos++
  return pos
}

/** String literals in the code that look like file paths (`'/etc/shadow'`, `"~/.ssh/id_rsa"`). */
export function pathLiteralsInCode(code: string): string[] {
  // The home directory spelled through the language's API is the home directory.
  const out: string[] = HOME_API.test(code) ? ['~'] : []
  for (const m of code.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)) {
    const s = unescapeLiteral(m[1] ?? m[2] ?? '')
    // Absolute and home paths, and relative ones that name a dotfile or a directory (`.svc.yaml`, `./x`, `a/b`).
    if ((/^(~|\/|\$HOME\/)[^\s]*$/.test(s) && !s.startsWith('//')) || /^(\.[\w.-]+|[\w.-]+\/[\w./@-]*)$/.test(s)) out.push(s)
  }
  return out.slice(0, 32)
}

function unescapeLiteral(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, e: string) => (e.length === 3 ? String.fromCharCode(parseInt(e.slice(1), 16)) : e === 'n' ? '\n' : e === 't' ? '\t' : e))
}

/** Decoding calls: base64, hex, rot13, zlib, marshal, pack/unpack, atob, Buffer.from(..., 'base64'|'hex'). */
const DECODE_CALL =
  /\bb(?:64|32|16|85)decode\b|\bbase64\.\w*decode|\bfromhex\b|\bunhexlify\b|\bcodecs\.decode\b|\bzlib\.decompress\b|\bgzip\.decompress\b|\bmarshal\.loads\b|\bpickle\.loads\b|\batob\s*\(|\bBuffer\.from\s*\([^)]*['"](?:base64|hex|base64url)['"]|\b(?:un)?pack\s*\(?\s*['"](?:H\*|h\*|m|u)['"]|\bdecode64\b|\bunpack1?\s*\(\s*['"]m|\bBase64\.\w*decode|\bgzinflate\b|\bstr_rot13\b|\bhex2bin\b|\bString\.fromCharCode\s*\(/
/** Calls that run code or commands: eval/exec/system/popen/subprocess/child_process/Function(. */
const RUN_CALL =
  /\b(?:eval|exec|execfile|compile|system|popen|spawn|spawnSync|execSync|execFileSync|Function|passthru|shell_exec|proc_open|assert)\s*\(|\bsubprocess\.|\bchild_process\b|\bos\.system\b|\beval\s+|`|\bqx\b|\bIO\.popen\b|\bKernel\.\w+/

/** Inline code that decodes data and runs code in the same program: decode-then-execute by another name. */
export function decodesThenRuns(code: string): boolean {
  return DECODE_CALL.test(code) && RUN_CALL.test(code)
}
