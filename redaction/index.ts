/**
 * The redaction library's public face: the one redaction every svc surface uses (case bundles, OTLP export,
 * `svc log`, `svc top`, dashboards, skills). A library, not a plugin: it registers nothing and imports nothing,
 * so every family (plugins, the CLI) may import it, through this file only.
 * @module
 */
export { REDACTION_VERSION, redactText, redactValue, type RedactionChange } from './redact.ts'
