/**
 * Starts the `svc top` TUI on the terminal (alternate screen, restored on exit) and waits until it quits.
 * Imported only by `svc top`'s action, so ink and react load for that command alone.
 */
import { render } from 'ink'
import { createElement } from 'react'
import { TopApp, type TopProps } from './app.ts'

export async function runTop(props: TopProps): Promise<void> {
  const app = render(createElement(TopApp, props), { exitOnCtrlC: true, alternateScreen: true, patchConsole: true })
  await app.waitUntilExit()
}
