/**
 * The protected set's lists (issue 27): what the secrets, persistence and self-protection packs guard, declared once
 * for the gate (as policy lists) and the sandbox layer (`svc install --sandbox`). The list type is the harness
 * contract's (plugins/protected-set/set.ts). Paste new paths into the list they belong to.
 */
import type { ProtectedList } from '../../harness-contract/index.ts'

/** Private keys (secrets pack, `secrets.ssh-private-key`). */
const SECRET_KEYS: ProtectedList = {
  name: '$SVC_SECRET_KEYS',
  keep: 'read',
  what: 'private keys (~/.ssh, ~/.gnupg, *.pem, *.key, keystores)',
  // prettier-ignore
  globs: [
    '~/.ssh',
    '**/.ssh',
    '**/.ssh/**',
    '/etc/ssh/ssh_host_*',
    '**/*.pem',
    '**/*.key',
    '**/*.p12',
    '**/*.pfx',
    '**/*.jks',
    '**/*.keystore',
    '~/.gnupg',
    '~/.gnupg/private-keys-v1.d/**',
    '~/.gnupg/secring.gpg',
    '/etc/ssl/private',
    '/etc/ssl/private/**',
  ],
}

const PUBLIC_KEYS: ProtectedList = {
  name: '$SVC_PUBLIC_KEYS',
  keep: 'except',
  of: '$SVC_SECRET_KEYS',
  what: 'public keys, known_hosts and ssh config (readable)',
  globs: ['**/*.pub', '**/.ssh/known_hosts*', '**/.ssh/config', '**/.ssh/authorized_keys', '**/*.crt', '**/*.cer', '**/*.csr'],
}

/**
 * Credential paths both views share: file tools (`$SVC_CREDENTIALS`) and commands (`$SVC_CREDENTIAL_READS`) name the
 * same files; each list adds only how it spells a directory. Declared once so a new path reaches both.
 */
// prettier-ignore
const CREDENTIAL_PATHS: readonly string[] = [
  '~/.aws',
  '~/.config/gcloud',
  '~/.azure',
  '~/.kube',
  '~/.password-store',
  '~/.config/gcloud/**',
  '~/.azure/**',
  '~/.kube/config',
  '~/.docker/config.json',
  '~/.netrc',
  '~/.git-credentials',
  '~/.npmrc',
  '~/.pypirc',
  '~/.config/gh/hosts.yml',
  '~/.vault-token',
  '~/.cargo/credentials*',
  '~/.password-store/**',
  '**/service-account*.json',
  '**/*credentials*.json',
  '~/.codex/auth.json',
  '~/.gemini/oauth_creds.json',
  '~/.gemini/google_accounts.json',
  '~/.mozilla/firefox/*/cookies.sqlite',
  '~/.mozilla/firefox/*/logins.json',
  '~/.mozilla/firefox/*/key4.db',
  '~/.config/google-chrome/*/Cookies',
  '~/.config/google-chrome/*/Login Data',
  '~/.config/chromium/*/Cookies',
  '~/.config/chromium/*/Login Data',
  '~/Library/Application Support/Google/Chrome/*/Cookies',
  '~/Library/Application Support/Google/Chrome/*/Login Data',
  '~/Library/Keychains/**',
  '~/.local/share/keyrings/**',
  // Round three: database password files, age/sops keys, git's XDG store, assistant and edge/serverless CLI tokens.
  '~/.pgpass',
  '~/.pg_service.conf',
  '~/.my.cnf',
  '~/.mylogin.cnf',
  '~/.config/sops/age/keys.txt',
  '~/Library/Application Support/sops/age/keys.txt',
  '~/.config/git/credentials',
  '~/.config/github-copilot/hosts.json',
  '~/.config/github-copilot/apps.json',
  '~/.claude/.credentials.json',
  '~/.wrangler/config/default.toml',
  '~/.config/.wrangler/config/default.toml',
  '~/.fly/config.yml',
  '~/.supabase/access-token',
  '~/.local/share/com.vercel.cli/auth.json',
  '~/Library/Application Support/com.vercel.cli/auth.json',
  '~/.config/netlify/config.json',
  '~/.netlify/config.json',
]
/** Tool tokens the command view used to miss (`cat ~/.gem/credentials` was allowed): now in both. */
const TOKEN_FILES: readonly string[] = ['~/.config/hub', '~/.terraform.d/credentials.tfrc.json', '~/.gem/credentials']

/** Cloud, registry and tool credentials as file tools name them (secrets pack, `secrets.cloud-credentials`). */
const CREDENTIALS: ProtectedList = {
  name: '$SVC_CREDENTIALS',
  keep: 'read',
  what: 'cloud, registry and tool credentials, browser cookie and password stores, keychains',
  globs: [
    ...CREDENTIAL_PATHS,
    // Whole directories and single files, as Read/Grep/Glob name them (commands read `~/.aws/**` below).
    '~/.docker',
    '~/.aws/credentials',
    '~/.aws/config',
    '~/.aws/sso/cache/**',
    ...TOKEN_FILES,
  ],
}

/** The same credentials as shell commands are judged by (`reads_any`: a directory's contents spelled with `/**`). */
const CREDENTIAL_READS: ProtectedList = {
  name: '$SVC_CREDENTIAL_READS',
  keep: 'read',
  what: 'the credentials above, as commands read them',
  globs: [...CREDENTIAL_PATHS, '~/.aws/**', ...TOKEN_FILES],
}

const ENV_FILES: ProtectedList = {
  name: '$SVC_ENV_FILES',
  keep: 'read',
  what: 'project .env files',
  globs: ['**/.env', '**/.env.*', '**/*.env', '**/.dev.vars', '**/.dev.vars.*'],
}

const ENV_TEMPLATES: ProtectedList = {
  name: '$SVC_ENV_TEMPLATES',
  keep: 'except',
  of: '$SVC_ENV_FILES',
  what: '.env templates (readable)',
  globs: ['**/.env*.example', '**/.env*.sample', '**/.env*.template', '**/.env*.dist', '**/.env*.defaults', '**/*.example.env'],
}

/** Files whose purpose is to run code later (persistence pack, `persist.autorun-files`). */
const AUTORUN: ProtectedList = {
  name: '$SVC_AUTORUN_FILES',
  keep: 'write',
  what: 'start-up files: shell rc, tool rc, ~/.ssh config and keys, git hooks and global config, PATH directories, Python start-up hooks, autostart',
  // prettier-ignore
  globs: [
    '~/.bashrc',
    '~/.bash_profile',
    '~/.bash_login',
    '~/.bash_logout',
    '~/.profile',
    '~/.zshrc',
    '~/.zshenv',
    '~/.zprofile',
    '~/.zlogin',
    '~/.inputrc',
    '~/.bash_aliases',
    '~/.zlogout',
    '~/.config/fish/**',
    '~/.xprofile',
    '~/.xsessionrc',
    '~/.xinitrc',
    '~/.pam_environment',
    '~/.config/environment.d/**',
    '~/.vimrc',
    '~/.vim/plugin/**',
    '~/.config/nvim/**',
    '~/.emacs',
    '~/.emacs.d/init.el',
    '~/.config/emacs/init.el',
    '~/.tmux.conf',
    '~/.config/tmux/tmux.conf',
    '~/.gdbinit',
    '~/.config/gdb/gdbinit',
    '~/.lldbinit',
    '~/.psqlrc',
    '~/.sqliterc',
    '~/.Rprofile',
    '~/.ipython/profile_*/startup/**',
    '~/.direnvrc',
    '~/.config/direnv/**',
    '~/.ssh/config',
    '~/.ssh/authorized_keys*',
    '~/.ssh/rc',
    '~/.ssh/environment',
    '/etc/profile',
    '/etc/profile.d/**',
    '/etc/bash.bashrc',
    '**/.git/hooks/*',
    '**/node_modules/.bin/*',
    '~/.local/bin/*',
    '~/bin/*',
    '/usr/local/bin/*',
    '/usr/local/sbin/*',
    '/opt/homebrew/bin/*',
    '~/.cargo/bin/*',
    '~/go/bin/*',
    '**/usercustomize.py',
    '**/sitecustomize.py',
    '**/site-packages/*.pth',
    '~/.gitconfig',
    '~/.config/git/config',
    '~/.config/autostart/**',
    '~/Library/LaunchAgents/**',
    '~/.config/systemd/user/**',
    '/etc/cron*/**',
    // Configs that make a tool run code or send files later: package managers' (script-shell, node-options, build hooks), cargo's runner and wrapper, kubeconfig `exec` plugins, docker credential helpers, curl/wget defaults, completion scripts and editor plugin directories.
    '~/.npmrc',
    '~/.yarnrc',
    '~/.yarnrc.yml',
    '~/.config/pip/pip.conf',
    '~/.pip/pip.conf',
    '~/.gemrc',
    '~/.bundle/config',
    '~/.gradle/init.gradle',
    '~/.gradle/init.d/**',
    '~/.cargo/config',
    '~/.cargo/config.toml',
    '~/.kube/config',
    '~/.docker/config.json',
    '~/.curlrc',
    '~/.config/.curlrc',
    '~/.wgetrc',
    '~/.bash_completion',
    '~/.bash_completion.d/**',
    '~/.local/share/bash-completion/**',
    '/etc/bash_completion.d/**',
    '/usr/share/bash-completion/completions/**',
    '~/.oh-my-zsh/custom/**',
    '~/.vim/**',
    '~/.emacs.d/**',
    '~/.config/emacs/**',
    '~/.vscode/extensions/**',
    '~/.cursor/extensions/**',
  ],
  gateOnly: {
    '**/node_modules/.bin/*': 'package installs write it in the workspace',
    '**/site-packages/*.pth': 'pip writes it in a project virtualenv',
  },
  rootIfPresent: {
    '**/usercustomize.py': 'Python imports it from its site directories, not from the directory it runs in (only with PYTHONPATH naming it)',
    '**/sitecustomize.py': 'Python imports it from its site directories, not from the directory it runs in (only with PYTHONPATH naming it)',
  },
}

/** svc's project layer and policy files (self-protection pack, `self.policy-files`). */
const POLICY_FILES: ProtectedList = {
  name: '$SVC_POLICY_FILES',
  keep: 'write',
  what: "svc's project layer (.svc.yaml, .svc/) and policy files",
  globs: ['**/.svc.yaml', '**/.svc.yml', '**/.svc/**', '**/group-policy.yaml', '**/svc/policies/*.yaml', '$SVC_POLICIES', '$SVC_POLICIES/**'],
  rootIfPresent: { '**/group-policy.yaml': "svc reads it from its home and its bundles' directories, never from a project" },
}

/**
 * Files a tool outside the sandbox runs later (direnv loads `.envrc` in the user's shell). The gate judges them
 * when they run; the sandbox keeps the agent's commands from planting them. No pack names this list yet.
 */
const RUN_LATER: ProtectedList = {
  name: '$SVC_RUN_LATER_FILES',
  keep: 'write',
  what: 'files tools outside the sandbox run later (.envrc)',
  globs: ['**/.envrc'],
}

/**
 * Environment variables that hold secrets: the sandbox unsets them for commands (`credentials.envVars`), and
 * `svc install --sandbox` adds every variable of the installing user's environment whose name says secret
 * (SECRET_ENV_NAME). The gate judges printing an environment (`env_dump`, a process's `environ`) on its own.
 */
const SECRET_ENV_VARS: ProtectedList = {
  name: '$SVC_SECRET_ENV_VARS',
  keep: 'read',
  kind: 'env',
  what: 'environment variables holding secrets (unset inside the sandbox)',
  // prettier-ignore
  globs: [
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'GITLAB_TOKEN',
    'NPM_TOKEN',
    'NODE_AUTH_TOKEN',
    'PYPI_TOKEN',
    'TWINE_PASSWORD',
    'CARGO_REGISTRY_TOKEN',
    'DOCKER_PASSWORD',
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'HF_TOKEN',
    'SLACK_TOKEN',
    'STRIPE_SECRET_KEY',
    'DATABASE_URL',
    'PGPASSWORD',
    'MYSQL_PWD',
    'VAULT_TOKEN',
    'SVC_ADMIN_PASSWORD',
  ],
}

/** The protected set, in the order status and the docs show it. */
export const PROTECTED_SET: readonly ProtectedList[] = [
  SECRET_KEYS,
  PUBLIC_KEYS,
  CREDENTIALS,
  CREDENTIAL_READS,
  ENV_FILES,
  ENV_TEMPLATES,
  AUTORUN,
  POLICY_FILES,
  RUN_LATER,
  SECRET_ENV_VARS,
]

/**
 * The user's additions, as `SVC_PROTECTED_PORTS` adds ports: `SVC_PROTECTED_READ` and `SVC_PROTECTED_WRITE` hold
 * globs separated by `:` (PATH style). Read paths join the credentials lists, write paths the start-up files, so
 * the same gates refuse them and the same sandbox settings deny them.
 */
export function userProtected(env: Readonly<Record<string, string | undefined>>): { read: string[]; write: string[] } {
  const split = (v: string | undefined) =>
    (v ?? '')
      .split(':')
      .map((s) => s.trim())
      .filter(Boolean)
  return { read: split(env.SVC_PROTECTED_READ), write: split(env.SVC_PROTECTED_WRITE) }
}

/** The protected set with the user's additions: what both layers enforce. */
export function protectedSet(env: Readonly<Record<string, string | undefined>>): ProtectedList[] {
  const extra = userProtected(env)
  const add: Record<string, readonly string[]> = { $SVC_CREDENTIALS: extra.read, $SVC_CREDENTIAL_READS: extra.read, $SVC_AUTORUN_FILES: extra.write }
  return PROTECTED_SET.map((l) => (add[l.name]?.length ? { ...l, globs: [...new Set([...l.globs, ...add[l.name]!])] } : l))
}
