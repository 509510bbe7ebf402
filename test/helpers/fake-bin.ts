/** A program on PATH that stands in for a system tool (systemctl, notify-send): a small sh script in a temp bin dir. */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Writes `<dir>/fake-bin/<name>` running `script`; returns a PATH with that dir first. */
export function fakeProgram(dir: string, name: string, script: string): string {
  const bin = join(dir, 'fake-bin')
  mkdirSync(bin, { recursive: true })
  writeFileSync(join(bin, name), `#!/bin/sh\n${script}`)
  chmodSync(join(bin, name), 0o755)
  return `${bin}:${process.env.PATH}`
}
