/**
 * Desktop notifications for what only a person can fix (a TOTP code, a stronger signer's session): macOS
 * through `osascript`, elsewhere `notify-send` when it is on PATH. Best effort and detached: a missing tool or
 * a headless session leaves the terminal line the agent always writes.
 */
import { spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

function onPath(program: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    try {
      accessSync(join(dir, program), constants.X_OK)
      return join(dir, program)
    } catch {
      // not here
    }
  }
  return undefined
}

/** A notifier for this platform and PATH; a no-op when there is none. */
export function desktopNotifier(env: NodeJS.ProcessEnv, platform = process.platform): (title: string, body: string) => void {
  const run = (file: string, args: string[]) => {
    try {
      const child = spawn(file, args, { stdio: 'ignore', detached: true, env })
      child.on('error', () => undefined)
      child.unref()
    } catch {
      // best effort
    }
  }
  if (platform === 'darwin') {
    const quote = (s: string) => JSON.stringify(s)
    return (title, body) => run('/usr/bin/osascript', ['-e', `display notification ${quote(body)} with title ${quote(`svc: ${title}`)}`])
  }
  const notifySend = onPath('notify-send', env)
  if (!notifySend) return () => undefined
  return (title, body) => run(notifySend, ['--app-name=svc', '--urgency=critical', `svc: ${title}`, body])
}
