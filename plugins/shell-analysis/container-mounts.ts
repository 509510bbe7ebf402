/**
 * A container run with host directories mounted reaches them with commands svc never sees (the container's
 * own shell): `docker run -v ~:/h alpine rm -rf /h`. The mounted host paths are recorded as read and written
 * by the docker command itself, so the gates on keys, svc's home and harness configs judge them, and a
 * mounted home directory (or anything above it) is a tree read like `cp -r ~`. A privileged container, the
 * host's PID namespace or the Docker socket give the container the host itself: the `container_escape` signal.
 */

const ENGINES: ReadonlySet<string> = new Set(['docker', 'podman', 'nerdctl', 'finch'])
/** `exec` too: `docker exec --privileged c sh` gives a running container's new process the host. */
const RUNS: ReadonlySet<string> = new Set(['run', 'create', 'exec'])
/** Host devices that hold disks, kernel memory or raw ports: a container given one owns the host's data. */
const HOST_DEVICE = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|dm-|mapper\/|loop|md\d|mem$|kmem$|port$|disk\/|root$|kmsg$)/

/** What a `docker run|create` (or `docker container run|create`) mounts from the host, and whether it escapes. */
export interface ContainerAccess {
  /** Raw host paths mounted (bind mounts and `-v SRC:DST`; named volumes are not host paths). */
  readonly sources: readonly string[]
  readonly escape: boolean
}

export function containerAccess(program: string, argv: readonly string[]): ContainerAccess | undefined {
  if (!ENGINES.has(program)) return undefined
  let at = 1
  while (at < argv.length && argv[at]!.startsWith('-')) at += /^--?(H|host|context|config|log-level)$/.test(argv[at]!) ? 2 : 1
  if (argv[at] === 'container') at++
  if (!RUNS.has(argv[at] ?? '')) return undefined
  const sources: string[] = []
  let escapes = false
  const args = argv.slice(at + 1)
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (!a.startsWith('-')) break // the image: what follows is the container's command
    const [name, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined]
    const value = (): string | undefined => inline ?? args[++i]
    if (name === '-v' || name === '--volume') addVolume(value(), sources)
    else if (name === '--mount') addMount(value(), sources)
    else if (name === '--privileged') escapes = inline !== 'false'
    else if (name === '--device' || name === '--security-opt') {
      const v = value() ?? ''
      if (HOST_DEVICE.test(v) || /^(?:seccomp|apparmor|systempaths)[=:]unconfined$/.test(v)) escapes = true
    } else if ((name === '--pid' || name === '--userns' || name === '--ipc' || name === '--uts') && value() === 'host') escapes = true
    else if (name === '--cap-add' && /^(ALL|SYS_ADMIN|SYS_PTRACE|SYS_MODULE|DAC_READ_SEARCH)$/i.test(value() ?? '')) escapes = true
    else if (/^-[a-zA-Z]*v$/.test(a) && a.length > 2) addVolume(args[++i], sources)
    else if (VALUED.has(name) && inline === undefined) i++
  }
  if (sources.some((s) => /(^|\/)docker\.sock$|(^|\/)podman\.sock$|containerd\.sock$/.test(s))) escapes = true
  return { sources, escape: escapes }
}

/** Options of `run` that take a value (so the value is not mistaken for the image). */
const VALUED: ReadonlySet<string> = new Set([
  '-e',
  '--env',
  '--env-file',
  '-p',
  '--publish',
  '-w',
  '--workdir',
  '--name',
  '-u',
  '--user',
  '--entrypoint',
  '--network',
  '--net',
  '-l',
  '--label',
  '--platform',
  '-m',
  '--memory',
  '--cpus',
  '--hostname',
  '-h',
  '--add-host',
  '--device',
  '--restart',
  '--log-driver',
  '--log-opt',
  '--tmpfs',
  '--volumes-from',
  '--security-opt',
  '--cap-drop',
  '--ulimit',
  '--shm-size',
  '--stop-signal',
  '--health-cmd',
  '--pull',
  '--dns',
  '--expose',
  '--group-add',
  '--label-file',
  '--cidfile',
  '--gpus',
])

function addVolume(spec: string | undefined, into: string[]): void {
  if (spec === undefined) return
  const source = spec.split(':')[0]!
  // `-v name:/data` is a named volume; `-v /data` an anonymous one: neither is a host path.
  if (source.startsWith('/') || source.startsWith('~') || source.startsWith('.') || source.startsWith('$')) into.push(source)
}

function addMount(spec: string | undefined, into: string[]): void {
  if (spec === undefined) return
  const fields = new Map(spec.split(',').map((f) => [f.slice(0, f.indexOf('=') === -1 ? f.length : f.indexOf('=')), f.slice(f.indexOf('=') + 1)] as const))
  const type = fields.get('type') ?? 'volume'
  const source = fields.get('source') ?? fields.get('src')
  if (type === 'bind' && source !== undefined) into.push(source)
}
