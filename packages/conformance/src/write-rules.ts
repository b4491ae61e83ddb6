import type { Repository } from '@thresher/checkpoint';
import { describeAtomicity } from './atomicity.js';
import { describeJournalRules } from './journal-rules.js';
import { describeLimits } from './limits.js';
import { describeParentLinks } from './parent-links.js';
import { describeTextRules } from './text-rules.js';
import type { RepositoryContractInitializer } from './types.js';

/**
 * The write rules of the contract (`write-rule-cases.ts`): all-or-nothing calls, the journal's head and repeat
 * rules, the text rule, the declared limits and whole parent links, on every backend alike.
 */
export function describeWriteRules<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
): void {
  describeAtomicity(initializer);
  describeJournalRules(initializer);
  describeTextRules(initializer);
  describeLimits(initializer);
  describeParentLinks(initializer);
}
