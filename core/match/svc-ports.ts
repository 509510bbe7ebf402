/**
 * `$SVC_PORTS`: the ports the svc control plane is reachable on, as policies name them. The daemon binds it to
 * the port it actually listens on, the reserved defaults (7878 API, 7879 dashboard) and the ports the operator
 * declares (`SVC_PROTECTED_PORTS`, e.g. host ports a container is published on), so a gate written once
 * (`url: { port: $SVC_PORTS }`, `args_any: ['*:$SVC_PORTS']`) protects the real ports, whatever they are.
 */

/** The symbolic name policies use. */
export const SVC_PORTS = '$SVC_PORTS'

/** API and dashboard ports (DESIGN.md): always protected, and the whole binding when nothing else is known. */
export const DEFAULT_SVC_PORTS: readonly number[] = [7878, 7879]

/** The bound ports of a context: the defaults when the context carries none. */
export function svcPortsOf(ctx: { readonly svcPorts?: readonly number[] }): readonly number[] {
  return ctx.svcPorts ?? DEFAULT_SVC_PORTS
}

/**
 * The sorted, de-duplicated union of the defaults and `extra` (0, "any free port", is never a real port and is
 * dropped). Throws a RangeError naming the value for anything that is not an integer port.
 */
export function svcPortSet(extra: readonly number[] = []): readonly number[] {
  for (const port of extra) if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`${port} is not a port number (0-65535)`)
  // Frozen: compiled port globs are cached by the identity of this array (see plugins/gates/command).
  return Object.freeze([...new Set([...DEFAULT_SVC_PORTS, ...extra.filter((p) => p !== 0)])].sort((a, b) => a - b))
}

/**
 * Parses an operator's port list (`SVC_PROTECTED_PORTS=17878,17879` or space-separated). Throws an Error
 * naming `what` and the bad item: a typo must stop the daemon, not silently leave a port open.
 */
export function parsePortList(text: string, what: string): number[] {
  const items = text.split(/[\s,]+/).filter((s) => s !== '')
  return items.map((item) => {
    const port = Number(item)
    if (!/^\d+$/.test(item) || port < 1 || port > 65535) throw new Error(`${what}: "${item}" is not a port number from 1 to 65535 (give a comma-separated list, e.g. 17878,17879)`)
    return port
  })
}

/** Cache key of a port set (compile bound globs once per distinct set). */
export function svcPortsKey(ports: readonly number[]): string {
  return ports.join(',')
}

const BINDING = /\$SVC_[A-Z0-9_]*/g

/** True when a glob names `$SVC_PORTS` (it must be bound per port set before use). */
export function namesSvcPorts(pattern: string): boolean {
  return pattern.includes(SVC_PORTS)
}

/**
 * Refuses a `$SVC_…` name in an argument glob other than `$SVC_PORTS`: `$SVC_PORT` would otherwise be a literal
 * that silently never matches. (Arguments are words after expansion, so a literal `$SVC_` in one is not a use case.)
 */
export function assertKnownPortBindings(pattern: string): void {
  for (const [name] of pattern.matchAll(BINDING)) {
    if (name !== SVC_PORTS) throw new Error(`unknown binding "${name}" in glob "${pattern}" (argument globs know only ${SVC_PORTS})`)
  }
}

/** `pattern` with every `$SVC_PORTS` replaced by a glob alternation of `ports` (`*:$SVC_PORTS` → `*:{7878,7879}`). */
export function bindPortGlob(pattern: string, ports: readonly number[]): string {
  const alternation = ports.length === 1 ? String(ports[0]) : `{${ports.join(',')}}`
  return pattern.replaceAll(SVC_PORTS, alternation)
}

/**
 * What `$SVC_PORTS` means for a daemon listening on `listening`: that port, the reserved 7878/7879, and the
 * operator's `SVC_PROTECTED_PORTS` (comma-separated; e.g. the host ports a container is published on, which
 * the daemon inside cannot see). A malformed list throws: it must stop the daemon, not leave a port open.
 */
export function protectedPorts(env: Readonly<Record<string, string | undefined>>, listening?: number): readonly number[] {
  const declared = env.SVC_PROTECTED_PORTS ? parsePortList(env.SVC_PROTECTED_PORTS, 'SVC_PROTECTED_PORTS') : []
  return svcPortSet(listening === undefined ? declared : [listening, ...declared])
}
