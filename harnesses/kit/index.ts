/**
 * The harness kit: wire-format helpers shared by several harness folders. It is not a plugin and registers
 * nothing; harness folders import it, the core never does (only harness folders know a harness's format).
 */
export { parseClaudeStyle, type ToolMapper } from './claude-style.ts'
export { commandIsOurs, groupIsOurs, INSTALL_HEADER, shimCommand } from './install-entries.ts'
export { readJsonc, serversFromCodexToml, serversFromJsonMap, stdioCommand } from './mcp-entries.ts'
export { absolutePath, asRecord, compact, derivedToolUseId, mappedCall, objectField, optionalString, requireString } from './payload.ts'
export { onPath, probeCommands } from './probe.ts'
export { appendEach, claudePathSpellings, LOOPBACK_HOSTS, setting, TOML_SANDBOX_HEADER } from './sandbox.ts'
export { HistoryCollector, jsonlLines, str } from './history.ts'
