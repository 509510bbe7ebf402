/**
 * `svc install --sandbox` per harness: the generated configuration (content, published schema), the managed
 * (`--system`) files, and the installer guarantees — a user's comments kept, a previous value restored, the
 * original bytes back after uninstall, a conflicting Codex sandbox key refused with its name.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parse as parseToml } from 'smol-toml'
import { createRegistries, extensionRegistry } from '../core/index.ts'
import { harnessPlugins } from '../harnesses/index.ts'
import protectedSetPlugin, { protectedSet } from '../plugins/protected-set/index.ts'
import { applyInstall, applyUninstall } from '../plugins/installer/apply.ts'
import { parseJsoncStrict } from '../plugins/installer/jsonc-edit.ts'
import { planInstall, planUninstall } from '../plugins/installer/plan.ts'
import { sandboxFacts } from '../plugins/installer/sandbox-facts.ts'
import { schemaProblems } from '../plugins/installer/validate.ts'

const all = harnessPlugins.map((p) => p.harness)
// The published schemas as each harness folder ships them (copies of /work/shared/harness-schemas).
const CLAUDE_SCHEMA = 'harnesses/claude-code/settings.schema.json'
const GEMINI_SCHEMA = 'harnesses/gemini/settings.schema.json'
let home: string

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'svc-sbxcfg-'))
  for (const d of ['.claude', '.codex', '.gemini', '.cursor']) mkdirSync(join(home, d))
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

function request(system = false) {
  const env = { home, env: {} }
  const svcHome = join(home, '.svc')
  const sandbox = sandboxFacts({ registered: all, env, svcHome, ports: [7878, 7879], policiesDir: join(home, 'policies'), system, systemRoot: join(home, 'etc'), set: protectedSet({}) })
  return { harnesses: all, scope: 'user' as const, env, svcHome, daemonUrl: 'http://127.0.0.1:7878', failOpen: false, transport: 'command' as const, sandbox }
}

const read = (...p: string[]) => readFileSync(join(home, ...p), 'utf8')

describe('svc install --sandbox: generated configuration per harness', () => {
  it('writes Claude Code, Codex, Gemini and Cursor sandbox settings that validate against the published schemas', () => {
    const req = request()
    applyInstall(req, planInstall(req).token)
    const claude = parseJsoncStrict(read('.claude', 'settings.json'), 'claude') as Record<string, any>
    expect(claude.sandbox).toMatchObject({ enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false, network: { strictAllowlist: true, allowLocalBinding: false } })
    // The protected set the gates use: svc's home and every secret unreadable, public keys readable again, start-up
    // files and svc's project layer unwritable (plugins/protected-set/set.ts).
    expect(claude.sandbox.filesystem.denyRead).toEqual(
      expect.arrayContaining(['~/.svc', '~/.ssh', '~/.aws', '~/.config/gcloud', '~/.kube', '~/.docker', '~/.gnupg', '~/.netrc', '~/.git-credentials']),
    )
    expect(claude.sandbox.filesystem.allowRead).toEqual(expect.arrayContaining(['~/.ssh/*.pub', '~/.ssh/known_hosts*']))
    expect(claude.sandbox.filesystem.denyWrite).toEqual(expect.arrayContaining(['~/.bashrc', '~/.gitconfig', '~/.local/bin', '~/.envrc', '~/.svc.yaml']))
    expect(claude.sandbox.filesystem.denyWrite).not.toContain('~/node_modules/.bin')
    expect(claude.sandbox.network.allowedDomains).toBeUndefined()
    expect(claude.sandbox.filesystem.denyWrite).toEqual(expect.arrayContaining(['~/.svc', '~/.codex/hooks.json', '~/.gemini/settings.json', '~/.cursor/sandbox.json']))
    expect(claude.sandbox.network.deniedDomains).toEqual(expect.arrayContaining(['localhost', '127.0.0.1', '[::1]', '0.0.0.0']))
    expect(claude.permissions).toMatchObject({ disableBypassPermissionsMode: 'disable' })
    expect(claude.permissions.deny).toEqual(expect.arrayContaining(['Read(~/.svc/**)', 'Edit(~/.svc/**)']))
    expect(schemaProblems(CLAUDE_SCHEMA, claude)).toEqual([])
    expect(parseToml(read('.codex', 'config.toml'))).toMatchObject({ sandbox_mode: 'workspace-write', sandbox_workspace_write: { network_access: false } })
    const gemini = parseJsoncStrict(read('.gemini', 'settings.json'), 'gemini') as Record<string, any>
    expect(gemini.security).toEqual({ toolSandboxing: true, disableYoloMode: true })
    expect(gemini.tools?.sandbox).toBeUndefined()
    expect(schemaProblems(GEMINI_SCHEMA, gemini)).toEqual([])
    expect(JSON.parse(read('.cursor', 'sandbox.json'))).toEqual({ type: 'workspace_readwrite', networkPolicy: { default: 'deny' } })
  })

  it('a protected path the user adds (SVC_PROTECTED_READ/WRITE) reaches the gate lists and the sandbox; --repo adds the project’s files', () => {
    const vars = { SVC_PROTECTED_READ: '~/.config/acme/token', SVC_PROTECTED_WRITE: '~/.config/acme/hooks.sh' }
    const registry = createRegistries()
    protectedSetPlugin.apply({ registry, env: vars } as never)
    const lists = extensionRegistry<readonly string[]>(registry, 'policy-list')
    expect(lists.get('$SVC_CREDENTIALS')).toContain('~/.config/acme/token')
    expect(lists.get('$SVC_CREDENTIAL_READS')).toContain('~/.config/acme/token')
    expect(lists.get('$SVC_AUTORUN_FILES')).toContain('~/.config/acme/hooks.sh')
    const repo = join(home, 'proj')
    const env = { home, repo, env: {} }
    const sandbox = sandboxFacts({
      registered: all,
      env,
      svcHome: join(home, '.svc'),
      ports: [7878],
      policiesDir: join(home, 'policies'),
      system: false,
      systemRoot: join(home, 'etc'),
      vars,
      set: protectedSet(vars),
      allowedDomains: ['registry.npmjs.org'],
    })
    expect(sandbox.secrets?.denyRead).toEqual(expect.arrayContaining([join(home, '.config/acme/token'), join(repo, '.env'), join(repo, '.env.*')]))
    expect(sandbox.secrets?.allowRead).toEqual(expect.arrayContaining([join(repo, '.env*.example')]))
    expect(sandbox.secrets?.denyWrite).toEqual(
      expect.arrayContaining([join(home, '.config/acme/hooks.sh'), join(repo, '.svc.yaml'), join(repo, '.svc'), join(repo, '.envrc'), join(repo, '.git/hooks'), join(repo, '.git/config')]),
    )
    const req = {
      harnesses: [all.find((h) => h.id === 'claude-code')!],
      scope: 'user' as const,
      env,
      svcHome: join(home, '.svc'),
      daemonUrl: 'http://127.0.0.1:7878',
      failOpen: false,
      transport: 'command' as const,
      sandbox,
    }
    applyInstall(req, planInstall(req).token)
    const claude = parseJsoncStrict(read('.claude', 'settings.json'), 'claude') as Record<string, any>
    expect(claude.sandbox.network.allowedDomains).toEqual(['registry.npmjs.org'])
    expect(claude.sandbox.credentials.envVars).toEqual(expect.arrayContaining([{ name: 'GITHUB_TOKEN', mode: 'deny' }]))
    expect(claude.sandbox.filesystem.denyRead).toContain('~/.config/acme/token')
    expect(claude.permissions.deny).toEqual(expect.arrayContaining(['Read(~/.config/acme/token)', 'Read(~/.aws/**)']))
    expect(schemaProblems(CLAUDE_SCHEMA, claude)).toEqual([])
  })

  it('--system writes the managed files (Claude managed-settings.json, Codex requirements.toml, Gemini system settings)', () => {
    const req = request(true)
    applyInstall(req, planInstall(req).token)
    const managed = JSON.parse(read('etc', 'claude-code', 'managed-settings.json')) as Record<string, any>
    expect(managed.sandbox.allowUnsandboxedCommands).toBe(false)
    expect(schemaProblems(CLAUDE_SCHEMA, managed)).toEqual([])
    expect(parseToml(read('etc', 'codex', 'requirements.toml'))).toEqual({ allowed_sandbox_modes: ['read-only', 'workspace-write'] })
    expect(JSON.parse(read('etc', 'gemini-cli', 'settings.json')).security).toEqual({ toolSandboxing: true, disableYoloMode: true })
  })

  it('keeps the user’s comments, restores a value it replaced, and gives back the original bytes on uninstall', () => {
    // Claude Code ignores a settings.json that is not strict JSON (install refuses one): its layout is kept, not comments.
    const claude = '{\n  "sandbox": { "enabled": false },\n  "model": "x"\n}\n'
    const codex = '# codex\nmodel = "o3"\n\n[tui]\nx = 1\n'
    writeFileSync(join(home, '.claude', 'settings.json'), claude)
    writeFileSync(join(home, '.codex', 'config.toml'), codex)
    const req = request()
    applyInstall(req, planInstall(req).token)
    expect(read('.claude', 'settings.json')).toContain('"model": "x"')
    expect(read('.codex', 'config.toml').startsWith('# svc sandbox layer')).toBe(true)
    expect(planInstall(req).changes).toEqual([])
    // An unrelated edit after install: uninstall cannot use the backup, and still restores `enabled: false`.
    writeFileSync(join(home, '.claude', 'settings.json'), read('.claude', 'settings.json').replace('"model": "x"', '"model": "y"'))
    const un = { svcHome: req.svcHome, harnesses: all }
    applyUninstall(un, planUninstall(un).token)
    expect(parseJsoncStrict(read('.claude', 'settings.json'), 'c')).toEqual({ sandbox: { enabled: false }, model: 'y' })
    expect(read('.codex', 'config.toml')).toBe(codex)
    // Untouched since install: byte for byte.
    writeFileSync(join(home, '.claude', 'settings.json'), claude)
    applyInstall(req, planInstall(req).token)
    applyUninstall(un, planUninstall(un).token)
    expect(read('.claude', 'settings.json')).toBe(claude)
  })

  it('refuses to override a Codex sandbox choice already in config.toml, naming the key', () => {
    writeFileSync(join(home, '.codex', 'config.toml'), 'sandbox_mode = "danger-full-access"\n')
    expect(() => planInstall(request())).toThrow(/already sets sandbox_mode/)
  })
})
