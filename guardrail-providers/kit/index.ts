/**
 * What the vendor folders share (not a plugin: it registers nothing): `defineGuardrailProvider`, which makes a
 * provider spec-correct by construction, its classification cache, the JSON POST and the composed text.
 */
export { createProviderRuntime, defineGuardrailProvider } from './define.ts'
export { postJson } from './http.ts'
export { composeText } from './text.ts'
