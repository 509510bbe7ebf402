/**
 * The harness contract's public face: what a harness folder defines (`defineHarness`) and what the daemon's hook
 * route, the installer, MCP pinning, status and doctor read from the registered harnesses. It is not the kernel's:
 * an engine decides tool calls without knowing any harness. A library folder every family may import.
 * @module
 */
export {
  defineHarness,
  definePlannedHarnesses,
  denyText,
  harnessRegistry,
  plannedHarnesses,
  SANDBOX_COVERS,
  type SandboxCover,
  HookPayloadError,
  type ConfigLocation,
  type HarnessDefinition,
  type HarnessEnv,
  type HarnessHistory,
  type HistoryCall,
  type HistoryLocation,
  type HistoryRead,
  type HarnessInstallPlan,
  type HarnessPlugin,
  type HarnessScope,
  type HookAnswer,
  type HookInput,
  type HookPhase,
  type HookSwitches,
  type HookTrust,
  type InstallContext,
  type InstallEntry,
  type SandboxFacts,
  type McpServerEntry,
  type McpShape,
  type NativeResponse,
  type ProbeResult,
  type ProbeTargets,
  type ProtectedPaths,
  type TrustRequest,
} from './harness.ts'
export { SECRET_ENV_NAME, type ProtectedList } from './protected-set.ts'
