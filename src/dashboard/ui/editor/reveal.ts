/**
 * Where a problem the server names by JSON pointer is shown in the visual
 * editor: the tab, the variant to edit (for a variant's own tree), and the
 * node to select (the deepest node on the pointer's way).
 */
import type { Path } from './json.ts';

export type TabId = 'design' | 'strings' | 'slots' | 'variants' | 'audiences' | 'theme' | 'json';

interface Place {
  tab: TabId;
  /** A variant's index when the pointer is in its own tree. */
  variant?: number;
  node?: Path;
}

const TABS: Readonly<Record<string, TabId>> = { strings: 'strings', slots: 'slots', variants: 'variants', audiences: 'audiences', theme: 'theme' };

export function placeOf(pointer: string): Place {
  const steps = pointer
    .split('/')
    .slice(1)
    .map((step) => step.replaceAll('~1', '/').replaceAll('~0', '~'));
  let rest: string[] | null = null;
  let variant: number | undefined;
  if (steps[0] === 'root') rest = steps.slice(1);
  else if (steps[0] === 'variants' && steps[2] === 'root' && /^\d+$/.test(steps[1] ?? '')) {
    variant = Number(steps[1]);
    rest = steps.slice(3);
  }
  if (rest === null) return { tab: TABS[steps[0] ?? ''] ?? 'json' };
  const node: (string | number)[] = [];
  for (let i = 0; i < rest.length; ) {
    if (rest[i] === 'children' && /^\d+$/.test(rest[i + 1] ?? '')) {
      node.push('children', Number(rest[i + 1]));
      i += 2;
    } else if (rest[i] === 'fallback') {
      node.push('fallback');
      i += 1;
    } else break;
  }
  return variant === undefined ? { tab: 'design', node } : { tab: 'design', variant, node };
}
