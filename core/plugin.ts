/**
 * The plugin contract. A plugin is `{ name, apply(host) }`; `apply` only taps hooks and registers
 * definitions (synchronously). Everything that varies — gate kinds, guardrail providers, harnesses,
 * normalisers — is a plugin listed once at startup.
 */
import type { Logger } from 'pino'
import { EngineError, ERR } from './errors.ts'
import { STAGE, type EngineHooks, type PredicateTest } from './hooks.ts'
import type { CompiledEvaluator, IndexKeys, SourceLoc } from './types.ts'

/** A unit of engine behaviour: registered once by name, its `apply` taps hooks and fills registries. */
export interface EnginePlugin {
  /** Namespaced, e.g. `gate:command_regex`, `normalise:tool-input`, `harness:<id>`. */
  readonly name: string
  /** Names of plugins that must be registered too (checked before any `apply`). */
  readonly dependsOn?: readonly string[]
  /** CLI commands it brings: static, so `svc --help` lists them without applying the plugin (see CommandDeclaration). */
  readonly commands?: readonly CommandDeclaration[]
  apply(host: PluginHost): void
}

/** What a command may touch: output, the environment, stdin and prompts (the CLI hands in its own io). */
export interface CommandIo {
  out(text: string): void
  err(text: string): void
  readonly env: Readonly<Record<string, string | undefined>>
  /** All of stdin (empty on a terminal). */
  readStdin(): Promise<string>
  /** Asks the user (no echo when hidden); undefined when nobody answers. */
  ask(prompt: string, opts?: { hidden?: boolean }): Promise<string | undefined>
  /** True when a person can answer prompts. */
  readonly interactive: boolean
}

/**
 * A CLI command, declared statically by whoever brings it (a plugin, or the CLI itself): `svc --help` lists it
 * from its name and summary alone, and `svc <name>` imports its module, whose default export makes the command
 * from the CLI's io. The core names no command library: what the factory returns is checked where the CLI reads
 * it (cli/commands/table.ts).
 */
export interface CommandDeclaration {
  readonly name: string
  /** One line for `svc --help`: the command's own description. */
  readonly summary: string
  /** The command it follows in `svc --help` (default: after every command declared before it). */
  readonly after?: string
  load(): Promise<{ readonly default: (io: CommandIo) => unknown }>
}

/**
 * What the CLI builds its command table from: who brings the commands (a plugin's name, or `cli`) and their
 * declarations. Every plugin is one; a family lists the manifests of its plugins that bring commands in a module
 * that loads none of their code (plugins/commands.ts), since `svc --help` must not apply or load plugins.
 */
export type CommandManifest = Pick<EnginePlugin, 'name' | 'commands'>

/** Hook view handed to plugins: they may tap, never call. */
export type TapOnly<H> = { readonly [K in keyof H]: H[K] extends { promise: unknown } | { call: unknown } ? Omit<H[K], 'call' | 'callAsync' | 'promise'> : H[K] }

/**
 * Something a plugin brings to the host that serves its engine: HTTP routes, a listener on a port of its own, a
 * background service started and stopped with the daemon. The core keeps them in plugin order and never looks
 * inside; the daemon reads them (daemon/surfaces.ts defines the kinds), and one-shot engines (`svc explain`)
 * never start them.
 */
export interface Surface {
  /** What the host does with it, e.g. `routes`, `listener`, `service`. */
  readonly kind: string
  /** Unique within its kind; the bringing plugin's name when absent (so a plugin brings one set of routes). */
  readonly name?: string
}

/** What a plugin's `apply` receives: the engine's hooks, registries, a logger bound to it and `$SVC_HOME`. */
export interface PluginHost {
  readonly hooks: TapOnly<EngineHooks>
  readonly registry: Registries
  readonly log: Logger
  /** `$SVC_HOME`, for plugins that keep state there (e.g. MCP pins); touch it only from hooks, never in `apply`. */
  readonly home: string
  /** The environment the engine started with (e.g. `<PROVIDER>_API_KEY`, read once in `apply`, held in memory only). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Declares a surface this plugin brings to the daemon (see Surface); a second one of the same kind and name is refused. */
  bring(surface: Surface): void
}

/** A JSON Schema object (validated with ajv at policy load). */
export type JsonSchema = Readonly<Record<string, unknown>>

/** Where a leaf predicate sits: used in load errors. */
export interface GateWhere {
  readonly gateId: string
  readonly loc: SourceLoc
}

/** A leaf predicate of the `when` block, e.g. `tool`, `command_regex`, `path`. */
export interface GateKind<V = unknown> {
  /** The key under `when`. Policy-facing, snake_case. */
  readonly kind: string
  readonly description: string
  /** JSON Schema of the YAML value. */
  readonly schema: JsonSchema
  /** Compiles the YAML value once per policy load; throws EngineError(GATE_CONFIG_INVALID) on a bad value. */
  compile(value: V, where: GateWhere): PredicateTest
  /**
   * Optional index hint: the exact tool names, shell programs or facets (gate-index.ts callFacets), one of which
   * a call must have for this leaf to hold (undefined when the kind cannot say). The policy indexes gates by it so
   * a check runs only the gates that can match; the gate tester checks the hint against every flagged case.
   */
  index?(value: V): IndexKeys | undefined
}

/** Where an evaluator entry sits: its gate and the YAML place of any value inside it (for line:col errors). */
export interface EvaluatorWhere {
  readonly gateId: string
  /** Place of a value under this entry, e.g. `['on_threshold', 0, 'severity']`. */
  loc(path: readonly (string | number)[]): SourceLoc
}

/** A guardrail evaluator kind usable in a gate's `evaluate` list (e.g. `llm_guardrail`). */
export interface EvaluatorKind {
  readonly kind: string
  readonly description: string
  readonly schema: JsonSchema
  /** Compiles one schema-valid entry at load; throws EngineError(GATE_CONFIG_INVALID) with the entry's line:col. */
  compile(value: unknown, where: EvaluatorWhere): CompiledEvaluator
}

/** The surfaces of one kind that plugins brought, by name, in registration order. */
export function broughtSurfaces<T extends Surface>(registry: Registries, kind: T['kind']): Map<string, T> {
  let map = registry.surfaces.get(kind)
  if (!map) {
    map = new Map()
    registry.surfaces.set(kind, map)
  }
  return map as Map<string, T>
}

/** Map-backed registries, one set per engine. */
export interface Registries {
  readonly gateKinds: Map<string, GateKind>
  readonly evaluatorKinds: Map<string, EvaluatorKind>
  /** Surfaces by kind, then by name, in registration order (filled through `PluginHost.bring`). */
  readonly surfaces: Map<string, Map<string, Surface>>
  /** Extension registries owned by other plugin families (harnesses, providers), keyed by family. */
  readonly extensions: Map<string, Map<string, unknown>>
}

/** Empty registries for one engine (never module-global, so each test builds its own). */
export function createRegistries(): Registries {
  return { gateKinds: new Map(), evaluatorKinds: new Map(), surfaces: new Map(), extensions: new Map() }
}

/** Registers `value` under `key` in a map, refusing duplicates (one implementation per name). */
export function registerOnce<T>(map: Map<string, T>, key: string, value: T, plugin: string): void {
  if (map.has(key)) throw new EngineError(ERR.PLUGIN_DUPLICATE, `${plugin}: "${key}" is already registered`, { plugin })
  map.set(key, value)
}

/** A typed extension registry (e.g. `extensionRegistry<HarnessDefinition>(registry, 'harness')`). */
export function extensionRegistry<T>(registry: Registries, family: string): Map<string, T> {
  let map = registry.extensions.get(family)
  if (!map) {
    map = new Map()
    registry.extensions.set(family, map)
  }
  return map as Map<string, T>
}

/**
 * Adds `items` to the policy list `name`: an item naming it in a gate's value (`path: ['$SVC_HARNESS_FILES', …]`)
 * is replaced by them at compile, so facts a plugin owns (a harness's config files) reach a shipped policy.
 */
export function addToPolicyList(registry: Registries, name: string, items: readonly string[]): void {
  const lists = extensionRegistry<readonly string[]>(registry, 'policy-list')
  lists.set(name, [...new Set([...(lists.get(name) ?? []), ...items])])
}

/** The engine plugin `defineGateKind` returns; `gateKind` is what a gate tester drives directly. */
export interface GateKindPlugin extends EnginePlugin {
  readonly gateKind: GateKind
}

/** Turns a gate-kind definition into a plugin: registers it and taps `evaluate.for(kind)`. */
export function defineGateKind<V>(definition: GateKind<V>): GateKindPlugin {
  const name = `gate:${definition.kind}`
  const gateKind = definition as GateKind
  return {
    name,
    gateKind,
    apply({ hooks, registry }) {
      registerOnce(registry.gateKinds, definition.kind, gateKind, name)
      hooks.evaluate.for(definition.kind).tap({ name, stage: STAGE.DEFAULT }, (leaf, request, ctx) => leaf.test(request, ctx))
    },
  }
}

/** Checks names and dependencies, then applies every plugin in order. */
export function applyPlugins(plugins: readonly EnginePlugin[], host: Omit<PluginHost, 'bring' | 'env'> & { readonly env?: PluginHost['env'] }): void {
  const names = new Set<string>()
  for (const plugin of plugins) {
    if (names.has(plugin.name)) throw new EngineError(ERR.PLUGIN_DUPLICATE, `plugin "${plugin.name}" is registered twice`, { plugin: plugin.name })
    names.add(plugin.name)
  }
  for (const plugin of plugins) {
    for (const dep of plugin.dependsOn ?? []) {
      if (!names.has(dep)) throw new EngineError(ERR.PLUGIN_MISSING_DEP, `plugin "${plugin.name}" needs "${dep}", which is not registered`, { plugin: plugin.name })
    }
  }
  for (const plugin of plugins) {
    const bring = (surface: Surface): void => registerOnce(broughtSurfaces(host.registry, surface.kind), surface.name ?? plugin.name, surface, plugin.name)
    plugin.apply({ ...host, env: host.env ?? {}, log: host.log.child({ plugin: plugin.name }), bring })
  }
}
