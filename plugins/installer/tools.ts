/** Planning, applying and validating installs, and Codex's hook trust (see loadInstallTools in index.ts). */
export { applyInstall, applyUninstall, installShim } from './apply.ts'
export { codexTrustDrift, TRUST_BY_HAND, trustCodexHooks, untrustCodexHooks } from './codex-trust.ts'
export { entryPresent } from './entry-present.ts'
export { parseJsoncStrict, valueAt } from './jsonc-edit.ts'
export { planInstall, planUninstall, type Plan } from './plan.ts'
export { schemaProblems } from './validate.ts'
