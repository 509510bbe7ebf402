/**
 * Asks for a missing TOTP code or passphrase on an interactive terminal (without echo), so an expired
 * session can be re-minted by typing the code instead of re-running with flags. Never prompts when stdin
 * is not a TTY: scripts keep getting the clear "missing --code" error.
 */
import { CliError } from '../io.ts'

/** Reads one line from the terminal without echoing it; undefined when stdin is not interactive. */
export function readHidden(prompt: string): Promise<string | undefined> {
  const stdin = process.stdin
  if (!stdin.isTTY) return Promise.resolve(undefined)
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
        if (ch === '\u0003' || ch === '\u0004') return done(() => reject(new CliError('cancelled; nothing was minted')))
        value = ch === '\u007f' || ch === '\b' ? value.slice(0, -1) : value + ch
      }
    }
    stdin.on('data', onData)
  })
}
