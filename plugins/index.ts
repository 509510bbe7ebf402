/**
 * Built-in engine plugins, in registration order. Adding a gate kind, a normaliser or a feature (with
 * its routes) is one folder and one line here.
 */
import type { EnginePlugin } from '../core/index.ts'
import command from './gates/command/index.ts'
import commandRegex from './gates/command-regex/index.ts'
import dashboard from './dashboard/index.ts'
import jsonpath from './gates/jsonpath/index.ts'
import mcp from './gates/mcp/index.ts'
import path from './gates/path/index.ts'
import signal from './gates/signal/index.ts'
import tool from './gates/tool/index.ts'
import url from './gates/url/index.ts'
import grants from './grants/index.ts'
import guardrails from './guardrails/index.ts'
import hookSocket from './hook-socket/index.ts'
import installer from './installer/index.ts'
import mcpPin from './mcp-pin/index.ts'
import normaliseToolInput from './normalise-tool-input/index.ts'
import operatorSecrets from './operator-secrets/index.ts'
import otlpExport from './otlp-export/index.ts'
import packChoices from './pack-choices/index.ts'
import policyBundle from './policy-bundle/index.ts'
import protectedSet from './protected-set/index.ts'
import ruleLifecycle from './rule-lifecycle/index.ts'
import shellAnalysis from './shell-analysis/index.ts'
import snapshots from './snapshots/index.ts'
import witness from './witness/index.ts'

export const builtinPlugins: readonly EnginePlugin[] = [
  normaliseToolInput,
  shellAnalysis,
  protectedSet,
  tool,
  commandRegex,
  command,
  signal,
  path,
  url,
  jsonpath,
  mcp,
  installer,
  mcpPin,
  guardrails,
  ruleLifecycle,
  policyBundle,
  dashboard,
  witness,
  hookSocket,
  otlpExport,
  operatorSecrets,
  snapshots,
  grants,
  packChoices,
]
