/**
 * Reading what the user types. On a terminal: a prompt on stderr, and for secrets (passwords, passphrases,
 * TOTP codes) no echo. Not on a terminal: the next line of stdin, so scripts pipe answers in order
 * (`printf '%s\n%s\n' "$PASSPHRASE" "$CODE" | svc session create --tier totp`). Secrets never have to be
 * command-line arguments, which other local users can read in the process list.
 */
export class PromptCancelled extends Error {
  constructor() {
    super('cancelled at the prompt; nothing was changed')
    this.name = 'PromptCancelled'
  }
}

/** Reads one line from the terminal in raw mode, echoing nothing when `hidden`. */
function readTerminalLine(prompt: string, hidden: boolean): Promise<string> {
  const stdin = process.stdin
  process.stderr.write(prompt)
  stdin.setRawMode(true)
  stdin.resume()
  let value = ''
  return new Promise((resolve, reject) => {
    const done = (fn: () => void) => {
      stdin.off('data', onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write('\n')
      fn()
    }
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(() => resolve(value))
        if (ch === '\u0003' || ch === '\u0004') return done(() => reject(new PromptCancelled()))
        if (ch === '\u007f' || ch === '\b') {
          if (value && !hidden) process.stderr.write('\b \b')
          value = value.slice(0, -1)
        } else {
          value += ch
          if (!hidden) process.stderr.write(ch)
        }
      }
    }
    stdin.on('data', onData)
  })
}

/** Answers from piped stdin, one line per question, read once. */
let pipedLines: Promise<string[]> | undefined

async function readAllStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** All of stdin (empty on a terminal); shares the lines `ask` hands out. */
export async function stdinText(): Promise<string> {
  if (process.stdin.isTTY) return ''
  pipedLines ??= readAllStdin().then((text) => text.split(/\r?\n/))
  return (await pipedLines).join('\n')
}

/** The next answer: typed on a terminal (hidden for secrets), else the next stdin line; undefined when none is left. */
export async function ask(prompt: string, opts: { hidden?: boolean } = {}): Promise<string | undefined> {
  if (process.stdin.isTTY) return readTerminalLine(prompt, opts.hidden ?? false)
  pipedLines ??= readAllStdin().then((text) => text.split(/\r?\n/))
  const lines = await pipedLines
  const line = lines.shift()
  return line === undefined || (line === '' && lines.length === 0) ? undefined : line
}
