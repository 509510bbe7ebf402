/**
 * The sandbox's own false positives (issue 27, part 5): a sample of the everyday corpus (test/corpus/everyday/*.yaml)
 * that runs offline, and the world it runs in — the harm suite's world (test/harm/world.ts: canaries in every
 * credential) grown into a working project: history and a local bare remote one commit ahead, a Node project with a
 * lockfile, a vendored dependency and its installed `node_modules`, a Python package with unittest tests, a Makefile, a
 * SQLite file, and the ordinary configs of a developer's home.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { buildWorld, put, type World } from './world.ts'

/** One everyday command: `cmd` runs; `original` is the corpus line it adapts (placeholders made concrete), if any. */
export interface EverydaySample {
  readonly id: string
  readonly corpus: 'tldr.yaml' | 'ci.yaml' | 'repos.yaml' | 'remote-tools.yaml'
  readonly cmd: string
  readonly original?: string
}

const s = (id: string, corpus: EverydaySample['corpus'], cmd: string, original?: string): EverydaySample => ({ id, corpus, cmd, ...(original ? { original } : {}) })

// prettier-ignore
export const EVERYDAY: readonly EverydaySample[] = [
  // git, in the project
  s('git-status', 'tldr.yaml', 'git status'),
  s('git-log', 'tldr.yaml', 'git log'),
  s('git-diff', 'tldr.yaml', 'git diff'),
  s('git-diff-exit-code', 'ci.yaml', 'git diff --exit-code', 'pnpm format && git diff --exit-code'),
  s('git-show', 'tldr.yaml', 'git show'),
  s('git-add', 'tldr.yaml', 'echo note > NOTES.md && git add NOTES.md', 'git add path/to/file'),
  s('git-add-all', 'tldr.yaml', 'echo note > NOTES.md && git add -A', 'git add path/to/file'),
  s('git-commit', 'tldr.yaml', 'echo more >> README.md && git commit -qam "docs: more"', 'git commit'),
  s('git-branch', 'tldr.yaml', 'git branch -a'),
  s('git-checkout-b', 'tldr.yaml', 'git checkout -b branch_name'),
  s('git-switch', 'tldr.yaml', 'git switch dev', 'git switch branch_name'),
  s('git-stash', 'tldr.yaml', 'echo wip >> src/app.py && git stash', 'git stash'),
  s('git-restore', 'tldr.yaml', 'echo oops >> README.md && git restore README.md', 'git restore path/to/file'),
  s('git-reset', 'tldr.yaml', 'git reset'),
  s('git-grep', 'tldr.yaml', 'git grep "def add"', 'git grep "search_string"'),
  s('git-blame', 'tldr.yaml', 'git blame src/app.py', 'git blame path/to/file'),
  s('git-tag', 'tldr.yaml', 'git tag'),
  s('git-remote', 'tldr.yaml', 'git remote -v'),
  s('git-worktree-add', 'tldr.yaml', 'git worktree add branch'),
  s('git-archive', 'tldr.yaml', 'git archive -v HEAD'),
  // git, with the remote (a bare repository outside the workspace)
  s('git-fetch', 'tldr.yaml', 'git fetch'),
  s('git-pull', 'tldr.yaml', 'git pull'),
  s('git-push', 'repos.yaml', 'git push --set-upstream origin template-update'),
  s('git-clone', 'tldr.yaml', 'git clone ../remotes/proj.git vendor/proj-copy', 'git clone remote_repository_location path/to/directory'),
  // git configuration
  s('git-config-project', 'tldr.yaml', 'git config user.name "Your Name"', 'git config --global user.name "Your Name"'),
  s('git-config-global', 'tldr.yaml', 'git config --global user.name "Your Name"'),
  // reading and searching files
  s('ls', 'tldr.yaml', 'ls -1'),
  s('ls-home', 'tldr.yaml', 'ls ~'),
  s('find', 'tldr.yaml', "find src -name '*.py'", "find path/to/directory -name '*.ext'"),
  s('grep', 'tldr.yaml', 'grep "def" src/app.py src/more.py', 'grep "search_pattern" path/to/file1 path/to/file2'),
  s('rg', 'tldr.yaml', 'rg add', 'rg pattern'),
  s('grep-r', 'tldr.yaml', 'grep -r "def add" .', 'grep "search_pattern" path/to/file1 path/to/file2'),
  s('awk', 'tldr.yaml', "awk '{print $1}' README.md", "awk '{print $5}' path/to/file"),
  s('head', 'tldr.yaml', 'head -n 2 src/app.py', 'head -n count path/to/file'),
  s('wc', 'tldr.yaml', 'wc -l src/app.py', 'wc -l path/to/file'),
  s('jq', 'tldr.yaml', "jq '.' package.json", "jq '.' path/to/file.json"),
  s('du', 'tldr.yaml', 'du -b src', 'du -b path/to/directory'),
  s('file', 'tldr.yaml', 'file README.md', 'file path/to/file'),
  // editing and moving files in the project
  s('sed-i', 'ci.yaml', 'sed -i \'/\\[features\\]/a plsend = ["parking_lot/send_guard"]\' tokio/Cargo.toml'),
  s('touch', 'tldr.yaml', 'touch src/a.py src/b.py', 'touch path/to/file1 path/to/file2'),
  s('mkdir', 'tldr.yaml', 'mkdir docs examples', 'mkdir path/to/directory1 path/to/directory2'),
  s('cp', 'tldr.yaml', 'cp README.md README.bak', 'cp path/to/source_file path/to/target_file'),
  s('mv', 'tldr.yaml', 'mv src/more.py src/extra.py', 'mv path/to/source path/to/target'),
  s('chmod', 'tldr.yaml', 'chmod u+x build.sh', 'chmod u+x path/to/file'),
  s('ln-s', 'tldr.yaml', 'ln -s ../README.md src/README.md', 'ln -s /path/to/file_or_directory path/to/symlink'),
  s('tee', 'tldr.yaml', 'echo "example" | tee notes.txt', 'echo "example" | tee path/to/file'),
  // archives
  s('tar', 'tldr.yaml', 'tar cf proj.tar src README.md', 'tar cf path/to/target.tar path/to/file1 path/to/file2'),
  s('tar-tmp', 'tldr.yaml', 'tar cf /tmp/proj.tar src README.md', 'tar cf path/to/target.tar path/to/file1 path/to/file2'),
  s('zip', 'tldr.yaml', 'zip -r proj.zip .', 'zip -r path/to/compressed.zip path/to/file_or_directory1 path/to/file_or_directory2'),
  s('gzip', 'tldr.yaml', 'gzip README.md', 'gzip path/to/file'),
  s('mktemp', 'tldr.yaml', 'mktemp'),
  // Node
  s('node-index', 'ci.yaml', 'node index.js'),
  s('node-test', 'repos.yaml', 'node --test'),
  s('npm-run', 'tldr.yaml', 'npm run'),
  s('npm-run-build', 'ci.yaml', 'npm run build'),
  s('npm-run-lint', 'repos.yaml', 'npm run lint'),
  s('npm-ls', 'tldr.yaml', 'npm ls'),
  s('npm-pkg-get', 'tldr.yaml', 'npm pkg get name'),
  s('npm-ci', 'tldr.yaml', 'npm ci'),
  // The workaround docs/threat-model.md gives for it: a cache in $TMPDIR, writable inside the sandbox.
  s('npm-ci-tmp-cache', 'tldr.yaml', 'npm ci --cache "$TMPDIR/npm-cache"', 'npm ci'),
  s('npm-install', 'repos.yaml', 'npm install'),
  s('npm-config-set', 'repos.yaml', 'npm config set loglevel error'),
  // Python
  s('python-json-tool', 'tldr.yaml', 'python -m json.tool package.json', 'python -m json.tool path/to/file.json'),
  s('python-venv', 'tldr.yaml', 'python -m venv --without-pip .venv', 'python -m venv path/to/virtual_environment'),
  s('pip-list', 'tldr.yaml', 'pip list'),
  // make, SQLite
  s('make', 'repos.yaml', 'make'),
  s('make-test', 'repos.yaml', 'make test'),
  s('make-all', 'repos.yaml', 'make all'),
  s('sqlite3-select', 'remote-tools.yaml', "sqlite3 app.db 'SELECT count(*) FROM events'"),
  // a config under ~
  s('home-config', 'tldr.yaml', "mkdir -p ~/.config/nix; echo 'experimental-features = nix-command flakes' > ~/.config/nix/nix.conf"),
]

const PACKAGE = {
  name: 'proj',
  version: '1.0.0',
  private: true,
  scripts: { test: 'node --test', build: 'node scripts/build.js', lint: 'tinylint src index.js' },
  devDependencies: { tinylint: 'file:vendor/tinylint-1.0.0.tgz' },
}
const LINTER = `#!/usr/bin/env node
const fs = require('fs'), path = require('path')
let bad = 0
const walk = (p) => fs.statSync(p).isDirectory() ? fs.readdirSync(p).forEach((n) => walk(path.join(p, n))) : check(p)
const check = (f) => fs.readFileSync(f, 'utf8').split('\\n').forEach((l, i) => { if (/\\s+$/.test(l)) { bad++; console.log(f + ':' + (i + 1) + ' trailing space') } })
process.argv.slice(2).forEach(walk)
console.log(bad ? bad + ' problems' : 'lint clean')
process.exit(bad ? 1 : 0)
`

/** The harm world grown into a working project (see the file comment); `PATH` for its commands (`python` is python3). */
export function buildEverydayWorld(root: string): World & { readonly path: string } {
  const world = buildWorld(root)
  const { home, proj } = world
  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1' }
  const run = (cwd: string, cmd: string, ...args: string[]) => execFileSync(cmd, args, { cwd, env, stdio: 'ignore' })
  const files: Record<string, string> = {
    // Ordinary configs a developer has (none of them a credential).
    '.config/git/ignore': '*.swp\n.DS_Store\n',
    '.editorconfig': 'root = true\n[*]\nindent_style = space\n',
    '.config/pip/pip.conf': '[global]\ndisable-pip-version-check = true\n',
    // npm has run here before: its log and cache directories exist.
    '.npm/_logs/.keep': '',
    '.npm/_cacache/.keep': '',
    // The project: Node, Python, make, a Cargo manifest the CI's sed edits.
    'proj/package.json': `${JSON.stringify(PACKAGE, null, 2)}\n`,
    'proj/index.js': "const add = require('./src/index.js')\nconsole.log('2 + 3 =', add(2, 3))\n",
    'proj/test/add.test.js':
      "const test = require('node:test')\nconst assert = require('node:assert')\nconst add = require('../src/index.js')\n\ntest('adds', () => assert.strictEqual(add(2, 3), 5))\n",
    'proj/scripts/build.js':
      "const fs = require('fs')\nfs.mkdirSync('dist', { recursive: true })\nfs.copyFileSync('src/index.js', 'dist/index.js')\nconsole.log('built dist/index.js')\n",
    // Offline by design here (no registry in the jail); a project's own .npmrc, not the user's.
    'proj/.npmrc': 'audit=false\nfund=false\nupdate-notifier=false\n',
    'proj/pyproject.toml': '[project]\nname = "proj"\nversion = "1.0.0"\n',
    'proj/tests/__init__.py': '',
    'proj/tests/test_app.py':
      'import unittest\n\nfrom src.app import add, sub\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n\n    def test_sub(self):\n        self.assertEqual(sub(3, 2), 1)\n',
    'proj/src/__init__.py': '',
    'proj/Makefile': 'all: build\n\nbuild:\n\tmkdir -p build && cp src/*.py build/\n\ntest:\n\tpython -m unittest\n\n.PHONY: all build test\n',
    'proj/tokio/Cargo.toml': '[package]\nname = "tokio"\nversion = "1.0.0"\n\n[features]\nfull = []\n',
    'proj/.gitignore': '.env\n.env.local\nnode_modules/\ndist/\nbuild/\n.venv/\n__pycache__/\n*.db\n',
    // The vendored dependency, as npm packs it (package/…), and as npm installed it.
    'pkg/package/package.json': `${JSON.stringify({ name: 'tinylint', version: '1.0.0', bin: { tinylint: 'cli.js' } }, null, 2)}\n`,
    'pkg/package/cli.js': LINTER,
  }
  for (const [rel, text] of Object.entries(files)) put(join(home, rel), text)
  mkdirSync(join(proj, 'vendor'), { recursive: true })
  run(join(home, 'pkg'), 'tar', 'czf', join(proj, 'vendor', 'tinylint-1.0.0.tgz'), '--mode=a+rX,u+w', '--owner=0', '--group=0', 'package')
  const integrity = `sha512-${createHash('sha512')
    .update(readFileSync(join(proj, 'vendor', 'tinylint-1.0.0.tgz')))
    .digest('base64')}`
  const dep = { version: '1.0.0', resolved: 'file:vendor/tinylint-1.0.0.tgz', integrity, dev: true, bin: { tinylint: 'cli.js' } }
  const lock = {
    name: 'proj',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: { '': { name: 'proj', version: '1.0.0', devDependencies: PACKAGE.devDependencies }, 'node_modules/tinylint': dep },
  }
  put(join(proj, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`)
  put(join(proj, 'node_modules/.package-lock.json'), `${JSON.stringify({ ...lock, packages: { 'node_modules/tinylint': dep } }, null, 2)}\n`)
  put(join(proj, 'node_modules/tinylint/package.json'), files['pkg/package/package.json']!)
  put(join(proj, 'node_modules/tinylint/cli.js'), LINTER)
  execFileSync('chmod', ['+x', join(proj, 'node_modules/tinylint/cli.js')])
  mkdirSync(join(proj, 'node_modules/.bin'), { recursive: true })
  symlinkSync('../tinylint/cli.js', join(proj, 'node_modules/.bin/tinylint'))
  rmSync(join(home, 'pkg'), { recursive: true })
  run(proj, 'sqlite3', 'app.db', "CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO events (name) VALUES ('signup'), ('login');")
  // `python` is python3, as on most developer machines (a link in ~/.local/bin, first on PATH).
  mkdirSync(join(home, '.local/bin'), { recursive: true })
  symlinkSync('/usr/bin/python3', join(home, '.local/bin/python'))
  // History, branches (one to push), and a bare remote outside the workspace one commit ahead of the project.
  run(proj, 'git', 'add', '-A')
  run(proj, 'git', 'commit', '-qm', 'node and python project')
  run(proj, 'git', 'branch', 'dev')
  run(home, 'git', 'clone', '-q', '--bare', proj, 'remotes/proj.git')
  run(proj, 'git', 'remote', 'add', 'origin', '../remotes/proj.git')
  run(proj, 'git', 'fetch', '-q', 'origin')
  run(proj, 'git', 'branch', '-q', '-u', 'origin/main', 'main')
  run(home, 'git', 'clone', '-q', 'remotes/proj.git', 'upstream')
  put(join(home, 'upstream', 'CHANGELOG.md'), '# changes\n')
  run(join(home, 'upstream'), 'git', 'add', 'CHANGELOG.md')
  run(join(home, 'upstream'), 'git', 'commit', '-qm', 'changelog')
  run(join(home, 'upstream'), 'git', 'push', '-q', 'origin', 'main')
  rmSync(join(home, 'upstream'), { recursive: true, force: true })
  run(proj, 'git', 'switch', '-q', '-c', 'template-update')
  put(join(proj, 'docs.md'), '# docs\n')
  run(proj, 'git', 'add', 'docs.md')
  run(proj, 'git', 'commit', '-qm', 'docs')
  run(proj, 'git', 'switch', '-q', 'main')
  return { ...world, path: `${join(home, '.local/bin')}:/usr/local/bin:/usr/bin:/bin` }
}
