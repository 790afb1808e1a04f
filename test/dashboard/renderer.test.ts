/** The reference renderer draws every component type the server accepts, no more and no fewer. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RENDERED_TYPES } from '../../src/dashboard/ui/paywall-types.ts';
import { COMPONENT_TYPES } from '../../src/paywalls/document/components.ts';

test('the renderer knows exactly the component types of the document schema', () => {
  assert.deepEqual([...RENDERED_TYPES].sort(), [...COMPONENT_TYPES].sort());
});
