/** A paywall's selection (its package_group or toggle) and countdowns' ends: what the layout needs beyond a node itself. */
import { isObject, str } from './slots.ts';

/** The slots a tree's selection can hold and the one it starts with; none when the tree has no selection. */
export interface Selection {
  slots: readonly string[];
  initial: string;
}

/** The first package_group or toggle of a tree, outside fallbacks (which apps that know no selection show). */
export function findSelection(root: unknown): Selection | undefined {
  const stack: unknown[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!isObject(node)) continue;
    const props = isObject(node.props) ? node.props : {};
    if (node.type === 'package_group' && Array.isArray(node.children)) {
      const slots = node.children.flatMap((child) =>
        isObject(child) && child.type === 'package' && isObject(child.props) ? (str(child.props.slot) ?? []) : [],
      );
      const initial = str(props.default_slot);
      if (slots.length > 0) return { slots, initial: initial !== undefined && slots.includes(initial) ? initial : slots[0]! };
    }
    if (node.type === 'toggle') {
      const on = str(props.slot_on);
      const off = str(props.slot_off);
      if (on !== undefined && off !== undefined) return { slots: [on, off], initial: props.default === true ? on : off };
    }
    // Children in reverse, so that the first in document order is found first.
    if (Array.isArray(node.children)) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return undefined;
}

/** When a countdown ends, in ms since the epoch: its ends_at, or duration_seconds after the user's first view. */
export function countdownEnd(props: Readonly<Record<string, unknown>>, firstViewedAt: number): number | undefined {
  const endsAt = str(props.ends_at);
  if (endsAt !== undefined) {
    const parsed = Date.parse(endsAt);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  const seconds = props.duration_seconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? firstViewedAt + seconds * 1000 : undefined;
}

const two = (n: number) => String(n).padStart(2, '0');

/** The time left as a countdown shows it: `02:13:05`, with days `3d 02:13:05`; never below zero. */
export function timeLeft(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(total / 86_400);
  const clock = `${two(Math.floor((total % 86_400) / 3600))}:${two(Math.floor((total % 3600) / 60))}:${two(total % 60)}`;
  return days > 0 ? `${days}d ${clock}` : clock;
}
