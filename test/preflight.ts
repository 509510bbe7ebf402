/**
 * Runs before the test suite: explains a wrong Node clearly instead of failing on node:sqlite later.
 */
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `svc needs Node >= 22.18 (found ${process.versions.node}). Run \`npm ci\` first: it installs the project's own Node 24 into node_modules/.bin, which npm scripts use.`,
  )
  process.exit(1)
}
