/** Helpers the vendor folders share (not a plugin: it registers nothing): the JSON POST and the composed text. */
export { MAX_ANSWER_BYTES, postJson } from './http.ts'
export { composeText } from './text.ts'
