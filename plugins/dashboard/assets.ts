/**
 * The page and its files: `web/` as written (native ES modules, no build step) and Preact, its hooks and htm
 * straight from node_modules, wired by an import map. The import map is the only inline script; its SHA-256 is
 * what the CSP allows. Files are read once at start and served from memory under fixed names (no path from the
 * request ever reaches the file system).
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, extname, join, relative } from 'node:path'

export interface Asset {
  readonly type: string
  readonly body: Buffer
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}
const WEB_DIR = join(import.meta.dirname, 'web')

const IMPORT_MAP = JSON.stringify({ imports: { preact: '/vendor/preact.mjs', 'preact/hooks': '/vendor/hooks.mjs', htm: '/vendor/htm.mjs' } })

function vendorFiles(): Record<string, string> {
  const require = createRequire(import.meta.url)
  // The packages' own entry points locate their dist folders (htm exports no package.json).
  const preactDist = dirname(require.resolve('preact'))
  const htmDist = dirname(require.resolve('htm'))
  return {
    '/vendor/preact.mjs': join(preactDist, 'preact.mjs'),
    '/vendor/hooks.mjs': join(preactDist, '..', 'hooks', 'dist', 'hooks.mjs'),
    '/vendor/htm.mjs': join(htmDist, 'htm.module.js'),
  }
}

function webFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? webFiles(join(dir, d.name)) : TYPES[extname(d.name)] ? [join(dir, d.name)] : []))
}

export function indexHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc dashboard</title>
<link rel="stylesheet" href="/app/style.css">
<script type="importmap">${IMPORT_MAP}</script>
<script type="module" src="/app/main.js"></script>
</head>
<body><div id="root"></div></body>
</html>
`
}

/** base64 SHA-256 of the inline import map, as a CSP hash source wants it. */
export const IMPORT_MAP_HASH = createHash('sha256').update(IMPORT_MAP).digest('base64')

/** Every file the dashboard serves, by URL path. */
export function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  assets.set('/', { type: 'text/html; charset=utf-8', body: Buffer.from(indexHtml()) })
  for (const [url, file] of Object.entries(vendorFiles())) assets.set(url, { type: TYPES['.mjs']!, body: readFileSync(file) })
  for (const file of webFiles(WEB_DIR)) assets.set(`/app/${relative(WEB_DIR, file).split('\\').join('/')}`, { type: TYPES[extname(file)]!, body: readFileSync(file) })
  return assets
}
