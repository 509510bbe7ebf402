/** Renders the OpenAPI 3.1 contract from the live routes' schemas. */
import pino from 'pino'
import { createEngine } from '../../core/index.ts'
import { buildApp, createAuthService } from '../../daemon/index.ts'
import { SHIPPED_POLICIES_DIR, VERSION } from '../../cli/paths.ts'
import { allPlugins } from '../../cli/plugins.ts'
import { tempDir } from './daemon.ts'

export async function renderOpenApi(): Promise<string> {
  const home = tempDir('svc-openapi-')
  const log = pino({ level: 'silent' })
  const engine = await createEngine({ plugins: allPlugins, home, policiesDir: SHIPPED_POLICIES_DIR, log })
  const app = await buildApp({ engine, auth: createAuthService(home, {}), version: VERSION, env: {}, logger: log })
  await app.ready()
  const yaml = app.swagger({ yaml: true })
  await app.close()
  await engine.close()
  return yaml
}
