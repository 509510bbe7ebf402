/**
 * What every harness's sandbox probe shares (`svc doctor --probe`): the attacks as shell commands, each of which
 * must fail inside the sandbox for the layer to hold, and finding a binary on PATH.
 */
import { spawnSync } from 'node:child_process'
import { delimiter, join } from 'node:path'
import type { ProbeTargets } from '../../harness-contract/index.ts'

/** The probes as shell commands: each exits 0 only when the attack got through (`reads`: it only reads). */
export function probeCommands(t: ProbeTargets): { probe: string; command: string; reads?: boolean }[] {
  const py = `import socket,sys\ns=socket.socket()\ns.settimeout(3)\ntry:\n  s.connect(("127.0.0.1",${t.port}))\nexcept Exception as e:\n  print(e); sys.exit(1)\nprint("connected")`
  return [
    // Harmless when they get through: the secret goes to /dev/null, the config is opened for append with nothing added.
    { probe: `read ${t.secretFile}`, command: `cat ${shellWord(t.secretFile)} > /dev/null`, reads: true },
    { probe: `list ${t.svcHome}`, command: `ls -A ${shellWord(t.svcHome)} | grep -q .`, reads: true },
    { probe: `write ${t.hookConfig}`, command: `: >> ${shellWord(t.hookConfig)}` },
    { probe: `connect to 127.0.0.1:${t.port} (python)`, command: `python3 -c ${shellWord(py)}` },
    { probe: `connect to 127.0.0.1:${t.port} (bash /dev/tcp)`, command: `exec 3<>/dev/tcp/127.0.0.1/${t.port}` },
  ]
}

function shellWord(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`
}

/** The executable `bin` on `env.PATH`, or undefined. */
export function onPath(bin: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, bin)
    if (spawnSync('test', ['-x', candidate]).status === 0) return candidate
  }
  return undefined
}
