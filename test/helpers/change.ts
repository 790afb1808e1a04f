import type { Change } from '../../src/shared/change.ts';

/** Who a test's own store calls say they are: their audit entries name the test. */
export const TEST_CHANGE: Change = { actor: { type: 'cli', id: 'test', label: 'the test' }, ip: null };
