/**
 * Route schemas compiled on first use instead of at start-up. Every route documents its success and error bodies
 * (app.ts's error contract adds five to eight problem responses each), and Fastify compiles every one of them,
 * with every request schema, before the daemon answers: about a third of a second of CPU on each start, for
 * routes most runs never call (the test suite starts hundreds of daemons). Fastify's own compilers do the work,
 * with the same options; only the moment moves. A schema that does not compile still fails loudly: on the
 * first request that needs it (as a 500 problem), and in test/route-schemas.api.test.ts, which compiles them all
 * and checks each against the JSON Schema meta-schema (app.ts spares the daemon compiling that at every start).
 */
import AjvCompiler from '@fastify/ajv-compiler'
import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import type { FastifySchemaCompiler, FastifySerializerCompiler, FastifyServerOptions } from 'fastify'

type Validator = ((data: unknown, context?: object) => unknown) & { errors?: unknown; schemaEnv?: unknown }
type Serializer = (data: unknown) => string
type BuildValidator = (externalSchemas: unknown, options: unknown) => FastifySchemaCompiler<unknown>
type BuildSerializer = (externalSchemas: unknown, options: unknown) => FastifySerializerCompiler<unknown>

export interface LazySchemas {
  /** Fastify's `schemaController.compilersFactory`. */
  readonly compilersFactory: NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
  /** Compiles every schema not compiled yet; returns how many it compiled (throws what a schema throws). */
  compilePending(): number
  /** Every route schema handed to the compilers so far (request parts and responses). */
  schemas(): readonly object[]
}

const ofApp = new WeakMap<object, LazySchemas>()

/** Remembers which lazy compilers an app uses, for compileAllSchemas. */
export function attachLazySchemas(app: object, schemas: LazySchemas): void {
  ofApp.set(app, schemas)
}

function lazyOf(app: object): LazySchemas {
  const schemas = ofApp.get(app)
  if (!schemas) throw new Error('this app does not compile its schemas lazily')
  return schemas
}

/** Compiles every route schema of `app` now (tests: a broken schema must not wait for its first request). */
export function compileAllSchemas(app: object): number {
  return lazyOf(app).compilePending()
}

/** Every route schema of `app` (tests check them against the meta-schema, which the daemon does not compile). */
export function routeSchemas(app: object): readonly object[] {
  return lazyOf(app).schemas()
}

/** One set of lazy compilers per app (each keeps the thunks of its own routes). */
export function lazySchemas(): LazySchemas {
  const pending = new Set<() => unknown>()
  const seen: object[] = []
  const buildValidator = AjvCompiler() as unknown as BuildValidator
  const buildSerializer = SerializerSelector() as unknown as BuildSerializer

  /** A thunk that compiles once, remembered until then so compilePending can force it. */
  function once<T>(compile: () => T): () => T {
    let compiled: T | undefined
    const force = (): T => {
      if (compiled === undefined) {
        compiled = compile()
        pending.delete(force)
      }
      return compiled
    }
    pending.add(force)
    return force
  }

  const lazyValidator: BuildValidator = (externalSchemas, options) => {
    const compiler = buildValidator(externalSchemas, options)
    return (route) => {
      seen.push(route.schema as object)
      const real = once(() => compiler(route) as Validator)
      const validate: Validator = (data, context) => {
        const fn = real()
        // Ajv may replace the root value (defaults) only when told its parent: Fastify passes it to
        // functions that have a schemaEnv, which this one claims until the real one is known.
        const result = fn.schemaEnv ? fn(data, context) : fn(data)
        validate.errors = fn.errors
        return result
      }
      validate.schemaEnv = true
      return validate as unknown as ReturnType<FastifySchemaCompiler<unknown>>
    }
  }
  const lazySerializer: BuildSerializer = (externalSchemas, options) => {
    const compiler = buildSerializer(externalSchemas, options)
    return (route) => {
      seen.push(route.schema as object)
      const real = once(() => compiler(route) as Serializer)
      return (data: unknown) => real()(data)
    }
  }
  return {
    // Fastify types these factories by Ajv's own signatures; they take and return what Fastify's defaults do.
    compilersFactory: { buildValidator: lazyValidator, buildSerializer: lazySerializer } as unknown as LazySchemas['compilersFactory'],
    compilePending() {
      let count = 0
      for (const force of [...pending]) {
        force()
        count++
      }
      return count
    },
    schemas: () => seen,
  }
}
