/**
 * The node vocabulary (every node type, its props and their kinds, what
 * children it holds), read from the server's own schemas. The dashboard's
 * bundle must carry no valibot: build-ui.mjs swaps this module for the
 * vocabulary as data, computed when the bundle is built. Run from the
 * sources (tests), it computes the same thing here.
 */
import { nodeVocabulary } from '../../../paywalls/document/vocabulary.ts';

export type NodeDescriptor = ReturnType<typeof nodeVocabulary>[number];
export type PropDescriptor = NodeDescriptor['props'][number];

export const VOCABULARY: readonly NodeDescriptor[] = nodeVocabulary();
