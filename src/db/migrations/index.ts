/**
 * The static list of schema migrations, in order. A static list (rather than a
 * directory scan) is what lets the esbuild bundle carry them. Add a migration
 * by appending a file here; never edit one that has shipped.
 */

import { projectsAndKeys } from './001_projects_and_keys.ts';
import { paywalls } from './002_paywalls.ts';
import { events } from './003_events.ts';
import { configGeneration } from './004_config_generation.ts';
import { eventDerivedState } from './005_event_derived_state.ts';
import { paywallPhases } from './006_paywall_phases.ts';
import { experimentEvents } from './007_experiment_events.ts';
import { compactEventIndexes } from './008_compact_event_indexes.ts';
import { phaseSeeds } from './009_phase_seeds.ts';
import { purchasesAndIdentity } from './010_purchases_and_identity.ts';
import { configChangeOrigin } from './011_config_change_origin.ts';
import { eventNamesChanged } from './012_event_names_changed.ts';
import { creationOrder } from './013_creation_order.ts';
import { teams } from './014_teams.ts';
import { identityLinks } from './015_identity_links.ts';
import { webhooks } from './016_webhooks.ts';
import { refundsSetAside } from './017_refunds_set_aside.ts';
import { keylessOwner } from './018_keyless_owner.ts';
import { eventPublicNames } from './019_event_public_names.ts';
import { placements } from './020_placements.ts';
import type { Migration } from './migration.ts';

export const migrations: readonly Migration[] = [
  projectsAndKeys,
  paywalls,
  events,
  configGeneration,
  eventDerivedState,
  paywallPhases,
  experimentEvents,
  compactEventIndexes,
  phaseSeeds,
  purchasesAndIdentity,
  configChangeOrigin,
  eventNamesChanged,
  creationOrder,
  teams,
  identityLinks,
  webhooks,
  refundsSetAside,
  keylessOwner,
  eventPublicNames,
  placements,
];
