/** Gate fixtures and replacement drafts for rule authors (see loadRuleAuthoring in index.ts). */
export { draftReplacement } from './draft.ts'
export { describeFailure, fixturesOf, fixturesPathFor, parseFixtures, runFixture } from './fixtures.ts'
