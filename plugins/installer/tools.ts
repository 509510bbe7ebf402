/** Planning, applying and validating installs (see loadInstallTools in index.ts). */
export { applyInstall, applyUninstall, installShim } from './apply.ts'
export { entryPresent } from './entry-present.ts'
export { parseJsoncStrict, valueAt } from './jsonc-edit.ts'
export { planInstall, planUninstall, type Plan } from './plan.ts'
export { schemaProblems } from './validate.ts'
