/** Statements database clients run, from every place they take them, recorded as `sql`/`redis`/`mongodb` commands. */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { analyzeCommand } from './analyze.ts'
import { loadBashParser, type BashParser } from './parser.ts'
import { sqlStatements } from './queries.ts'

let parser: BashParser
let cwd: string
beforeAll(async () => {
  parser = await loadBashParser()
  cwd = mkdtempSync(join(tmpdir(), 'svc-queries-'))
  writeFileSync(join(cwd, 'drop.sql'), '-- cleanup\nDROP TABLE users;\n')
  writeFileSync(join(cwd, 'main.sql'), '\\i drop.sql\n')
})
const queries = (raw: string) =>
  analyzeCommand(raw, { parser, home: '/home/dev', cwd })
    .commands.filter((c) => ['sql', 'redis', 'mongodb'].includes(c.program))
    .map((c) => c.text)

describe('database statements', () => {
  it('splits SQL into statements of upper-cased words, keeping quoted text and dropping comments and meta-commands', () => {
    expect(sqlStatements("begin; delete from t where name = 'x;y'; /* c */ commit")).toEqual([['BEGIN'], ['DELETE', 'FROM', 'T', 'WHERE', 'NAME', '=', "'x;y'"], ['COMMIT']])
    expect(sqlStatements('\\dt\n.tables\nselect 1 -- drop table x')).toEqual([['SELECT', '1']])
  })

  it.each([
    ["psql -c 'DROP TABLE users'", 'sql DROP TABLE USERS'],
    ['psql "$DATABASE_URL" --command="truncate logs"', 'sql TRUNCATE LOGS'],
    ["mysql -u root -e 'delete from users' app", 'sql DELETE FROM USERS'],
    ['mysql -edrop\\ database\\ app', 'sql DROP DATABASE APP'],
    ["sqlite3 app.db 'drop table t'", 'sql DROP TABLE T'],
    ['psql <<EOF\nDROP SCHEMA public CASCADE;\nEOF', 'sql DROP SCHEMA PUBLIC CASCADE'],
    ['psql <<-EOF\n\tDROP TABLE a;\n\tEOF', 'sql DROP TABLE A'],
    ["echo 'drop table t' | psql", 'sql DROP TABLE T'],
    ['psql -f drop.sql', 'sql DROP TABLE USERS'],
    ['psql < drop.sql', 'sql DROP TABLE USERS'],
    ['psql -f main.sql', 'sql DROP TABLE USERS'],
    ["docker exec -i db psql -U app -c 'drop table t'", 'sql DROP TABLE T'],
    ["kubectl exec -n prod pg-0 -- psql -c 'drop table t'", 'sql DROP TABLE T'],
    ['ssh db1 "psql -c \'drop table t\'"', 'sql DROP TABLE T'],
    ['bash -c "mysql -e \'drop database x\'"', 'sql DROP DATABASE X'],
    ["bq query --use_legacy_sql=false 'DELETE FROM ds.t WHERE true'", 'sql DELETE FROM DS.T WHERE TRUE'],
    ['redis-cli -h cache flushall', 'redis FLUSHALL'],
    ["echo 'FLUSHDB' | redis-cli -n 2", 'redis FLUSHDB'],
    ["mongosh app --eval 'db.users.deleteMany({})'", 'mongodb deleteMany {}'],
    ["mongosh --eval 'db.dropDatabase()'", 'mongodb dropDatabase'],
  ])('%s runs `%s`', (raw, expected) => {
    expect(queries(raw)).toContain(expected)
  })

  it('records nothing for clients that run no statement, and a bounded number of shapes for a large dump', () => {
    expect(queries('psql -l')).toEqual([])
    expect(queries('psql -h db -U app -d app')).toEqual([])
    expect(queries('mysql --version')).toEqual([])
    const dump = Array.from({ length: 2000 }, (_, i) => `INSERT INTO t VALUES (${i});`).join('\n')
    writeFileSync(join(cwd, 'dump.sql'), dump)
    expect(queries('psql -f dump.sql')).toHaveLength(1)
  })
})
