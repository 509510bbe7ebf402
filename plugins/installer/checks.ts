/** What `svc status` checks in installed harness configs (see loadInstallChecks in index.ts). */
export { entryPresent } from './entry-present.ts'
