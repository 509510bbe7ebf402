/**
 * svc's image, made from the published Dockerfile's own recipe without pulling a base image (this machine reaches
 * the npm registry and Debian, not a container registry), as a root filesystem the engine runs with `--rootfs`.
 * `FROM node:24-slim` becomes what the official base gives svc: the Node 24 binary the project already brings (the
 * `node` npm package) at /usr/local/bin, the shared libraries it links, a `node` user (uid 1000) and /tmp. Every COPY,
 * ENV, WORKDIR, USER, VOLUME, EXPOSE, STOPSIGNAL and CMD is the Dockerfile's; its RUN steps (there is no shell in the
 * image) are done here once each with the same result, and a RUN this helper does not know fails, so the recipe and
 * the test cannot drift apart. Files are hard links into the project's checkout (the image is run read-only), so
 * making one takes a moment, not a copy of 350 MB.
 */
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join, posix } from 'node:path'

/** The Dockerfile's run-time settings, for the engine's `run` flags. */
export interface ImageConfig {
  readonly env: Readonly<Record<string, string>>
  readonly workdir: string
  readonly user: string
  readonly volumes: readonly string[]
  readonly exposed: readonly number[]
  readonly stopSignal: string
  readonly cmd: readonly string[]
}

export interface Image {
  readonly rootfs: string
  readonly config: ImageConfig
}

/**
 * Copies by hard links: the image's files are the checkout's, never written (the container runs read-only).
 * A directory gives its contents; `skip` names entries left out at every level (a package's own node_modules).
 */
function link(from: string, to: string, skip: ReadonlySet<string> = new Set()): void {
  const stat = lstatSync(from)
  if (stat.isSymbolicLink()) return symlinkSync(readlinkSync(from), to)
  if (!stat.isDirectory()) return linkSync(from, to)
  mkdirSync(to, { recursive: true })
  for (const entry of readdirSync(from)) if (!skip.has(entry)) link(join(from, entry), join(to, entry), skip)
}

/** What each RUN of the Dockerfile does, done on the root filesystem. */
const RUN_STEPS: readonly { readonly matches: RegExp; readonly apply: (rootfs: string, workdir: string, project: string, commit: string) => void }[] = [
  {
    // `npm ci --omit=dev --omit=optional`: the lockfile's entries that are neither dev nor optional, as installed.
    matches: /^npm ci --omit=dev --omit=optional\b/,
    apply: (rootfs, workdir, project) => {
      const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> }
      const wanted = Object.entries(lock.packages).filter(([path, e]) => path && !e.dev && !e.optional && !e.devOptional && !e.link)
      // Outermost first: a nested node_modules is its own entry, so a package is linked without it, then its nested ones.
      for (const [path] of wanted.sort(([a], [b]) => a.length - b.length)) {
        const from = join(project, path)
        if (!existsSync(from)) throw new Error(`the production dependency ${path} is not installed in ${project}`)
        link(from, join(rootfs, workdir, path), new Set(['node_modules']))
      }
    },
  },
  {
    // The build-info line naming the commit.
    matches: /^if \[ -n "\$SVC_COMMIT" \]/,
    apply: (rootfs, workdir, _project, commit) => {
      if (commit) writeFileSync(join(rootfs, workdir, 'cli', 'build-info.json'), `${JSON.stringify({ commit })}\n`)
    },
  },
  {
    // The volume's mount point, owned by the image's user.
    matches: /^mkdir -p \/data && chown node:node \/data$/,
    apply: (rootfs) => {
      mkdirSync(join(rootfs, 'data'), { recursive: true })
      chownSync(join(rootfs, 'data'), 1000, 1000)
    },
  },
]

/** The official base's part that svc uses: Node at /usr/local/bin, its libraries, the `node` user, /tmp. */
function writeBase(rootfs: string, nodeBinary: string): void {
  mkdirSync(join(rootfs, 'usr/local/bin'), { recursive: true })
  copyFileSync(nodeBinary, join(rootfs, 'usr/local/bin/node'))
  const libraries = execFileSync('ldd', [nodeBinary], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /(\/\S+) \(0x/.exec(line)?.[1])
    .filter((path): path is string => Boolean(path))
  for (const library of libraries) {
    mkdirSync(join(rootfs, dirname(library)), { recursive: true })
    copyFileSync(library, join(rootfs, library)) // follows the link: the library itself
  }
  mkdirSync(join(rootfs, 'etc'), { recursive: true })
  writeFileSync(join(rootfs, 'etc/passwd'), 'root:x:0:0:root:/root:/sbin/nologin\nnode:x:1000:1000::/home/node:/sbin/nologin\n')
  writeFileSync(join(rootfs, 'etc/group'), 'root:x:0:\nnode:x:1000:\n')
  writeFileSync(join(rootfs, 'etc/hosts'), '127.0.0.1 localhost\n')
  mkdirSync(join(rootfs, 'tmp'), { recursive: true })
  chmodSync(join(rootfs, 'tmp'), 0o1777)
  mkdirSync(join(rootfs, 'home/node'), { recursive: true })
  chownSync(join(rootfs, 'home/node'), 1000, 1000)
}

/** Dockerfile lines joined across `\` continuations, comments and blanks dropped. */
function instructions(dockerfile: string): string[] {
  return dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
}

/** `A=1 B="x y"` into pairs (the Dockerfile's ENV form). */
function envPairs(text: string): [string, string][] {
  return [...text.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g)].map(([, key, value]) => [key!, value!.startsWith('"') ? JSON.parse(value!) : value!])
}

/** Makes the image's root filesystem under `dir` from the project's Dockerfile; returns it with the run settings. */
export function buildImage(project: string, dir: string, options: { readonly nodeBinary: string; readonly commit?: string }): Image {
  const rootfs = join(dir, 'rootfs')
  const env: Record<string, string> = {}
  let workdir = '/'
  let user = 'root'
  let stopSignal = 'SIGTERM'
  let cmd: string[] = []
  const volumes: string[] = []
  const exposed: number[] = []
  for (const line of instructions(readFileSync(join(project, 'Dockerfile'), 'utf8'))) {
    const [keyword, ...rest] = line.split(/\s+/)
    const argument = rest.join(' ')
    switch (keyword) {
      case 'FROM':
        if (argument !== 'node:24-slim') throw new Error(`the Dockerfile's base is now ${argument}: teach test/helpers/container-image.ts what it holds`)
        writeBase(rootfs, options.nodeBinary)
        env.PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
        break
      case 'ENV':
        for (const [key, value] of envPairs(argument)) env[key] = value
        break
      case 'WORKDIR':
        workdir = posix.resolve(workdir, argument)
        mkdirSync(join(rootfs, workdir), { recursive: true })
        break
      case 'COPY': {
        // Docker's rules: a directory source gives its contents; several sources, or a target ending in `/`, name a directory.
        const parts = rest.filter((p) => !p.startsWith('--'))
        const sources = parts.slice(0, -1)
        const target = join(rootfs, posix.resolve(workdir, parts.at(-1)!))
        const intoDirectory = sources.length > 1 || parts.at(-1)!.endsWith('/')
        for (const source of sources) {
          const from = join(project, source)
          if (statSync(from).isDirectory()) link(from, target)
          else {
            mkdirSync(intoDirectory ? target : dirname(target), { recursive: true })
            link(from, intoDirectory ? join(target, basename(source)) : target)
          }
        }
        break
      }
      case 'RUN': {
        const step = RUN_STEPS.find((s) => s.matches.test(argument))
        if (!step) throw new Error(`the Dockerfile runs a step this test cannot reproduce without a shell: RUN ${argument}`)
        step.apply(rootfs, workdir, project, options.commit ?? '')
        break
      }
      case 'USER':
        user = argument
        break
      case 'VOLUME':
        volumes.push(...(JSON.parse(argument) as string[]))
        break
      case 'EXPOSE':
        exposed.push(...rest.map(Number))
        break
      case 'STOPSIGNAL':
        stopSignal = argument
        break
      case 'CMD':
        cmd = JSON.parse(argument) as string[]
        break
      case 'ARG':
      case 'HEALTHCHECK':
        break // a build argument (SVC_COMMIT is the option above); the health check is the engine's, not the run's
      default:
        throw new Error(`the Dockerfile has an instruction this test does not know: ${line}`)
    }
  }
  return { rootfs, config: { env, workdir, user, volumes, exposed, stopSignal, cmd } }
}
