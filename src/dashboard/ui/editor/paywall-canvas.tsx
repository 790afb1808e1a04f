import type { JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { type PaywallAction, type PaywallView, type Prices, type ResolvedInput, renderPaywall } from '../../../../render/index.ts';

/**
 * A resolve answer drawn by dist/render's renderPaywall, the renderer apps
 * ship, so that what the team previews is what ships. Preact owns the host
 * element; the renderer owns what is inside it.
 */
export function PaywallCanvas(props: {
  resolved: ResolvedInput;
  prices: Prices;
  asOlderApp: boolean;
  colorScheme: 'light' | 'dark';
  onAction: (action: PaywallAction) => void;
  /** A click on a drawn node: its path below the root, as the renderer marks it (data-pw-path). */
  onPick?: (path: string) => void;
}): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<PaywallView | null>(null);
  const onAction = useRef(props.onAction);
  onAction.current = props.onAction;

  useEffect(() => {
    view.current = renderPaywall(host.current!, props.resolved, { onAction: (action) => onAction.current(action) });
    return () => {
      view.current?.destroy();
      view.current = null;
    };
  }, []);
  useEffect(() => view.current?.update(props.resolved), [props.resolved]);
  useEffect(
    () => view.current?.update({ prices: props.prices, asOlderApp: props.asOlderApp, colorScheme: props.colorScheme }),
    [props.prices, props.asOlderApp, props.colorScheme],
  );

  const onPick = useRef(props.onPick);
  onPick.current = props.onPick;
  // Captured before the renderer's own handlers: a tap still does what it does in an app, and also selects its node.
  const pick = (event: MouseEvent) => {
    const drawn = (event.target as Element | null)?.closest?.('[data-pw-path]');
    if (drawn instanceof HTMLElement && host.current?.contains(drawn)) onPick.current?.(drawn.dataset.pwPath ?? '');
  };
  return <div ref={host} class="paywall-canvas" onClickCapture={pick} />;
}
