/**
 * Writes openapi.yaml from the routes' JSON schemas (`npm run openapi`). A test fails when the committed
 * file is out of step with the routes.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { renderOpenApi } from '../test/helpers/openapi.ts'
import { PROJECT_ROOT } from '../cli/paths.ts'

writeFileSync(join(PROJECT_ROOT, 'openapi.yaml'), await renderOpenApi())
console.log('openapi.yaml written')
