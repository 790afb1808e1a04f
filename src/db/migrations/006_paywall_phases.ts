import type { Migration } from './migration.ts';

/**
 * Experiment phases: a phase starts when a revision goes live whose variants,
 * weights or audiences differ from the live one before it (or on request).
 * `design` is the JSON of what defines the split (variants with weight and
 * holdout, audiences with condition and weights), compared key-order-free at
 * each publish. Paywalls live before this migration get one phase from their
 * creation: v0.1 had no phases, so all their history is one experiment.
 */
export const paywallPhases: Migration = {
  version: 6,
  name: 'experiment phases of paywalls',
  sql: `
    CREATE TABLE paywall_phases (
      project_id TEXT NOT NULL,
      paywall_id TEXT NOT NULL,
      number     INTEGER NOT NULL,
      revision   INTEGER NOT NULL,
      started_at INTEGER NOT NULL,
      ended_at   INTEGER,
      design     TEXT NOT NULL,
      PRIMARY KEY (project_id, paywall_id, number),
      FOREIGN KEY (project_id, paywall_id) REFERENCES paywalls (project_id, id) ON DELETE CASCADE
    ) STRICT;

    INSERT INTO paywall_phases (project_id, paywall_id, number, revision, started_at, ended_at, design)
    SELECT p.project_id, p.id, 1, p.live_revision, p.created_at, NULL,
           json_object(
             'variants', (SELECT json_group_array(json_object('id', v.value ->> '$.id',
                                                              'weight', v.value ->> '$.weight',
                                                              'holdout', json(iif(v.value ->> '$.holdout' = 1, 'true', 'false'))))
                          FROM json_each(r.document, '$.variants') v),
             'audiences', (SELECT json_group_array(json_object('id', a.value ->> '$.id',
                                                               'when', a.value -> '$.when',
                                                               'weights', a.value -> '$.weights'))
                           FROM json_each(r.document, '$.audiences') a))
    FROM paywalls p
    JOIN paywall_revisions r ON r.project_id = p.project_id AND r.paywall_id = p.id AND r.revision = p.live_revision
    WHERE p.live_revision IS NOT NULL;
  `,
};
