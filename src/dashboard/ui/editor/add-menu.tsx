/**
 * "Add component": a menu button (the ARIA menu pattern) offering the types
 * the selected node may hold. Arrow keys move through the types, Enter or
 * Space adds one, Escape closes and gives the focus back to the button.
 */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export function AddMenu({ types, onAdd }: { types: readonly string[]; onAdd: (type: string) => void }): JSX.Element {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open) menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]')[active]?.focus();
  }, [open, active]);
  const close = (focus: boolean) => {
    setOpen(false);
    if (focus) button.current?.focus();
  };
  const choose = (type: string) => {
    close(false);
    onAdd(type);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const last = types.length - 1;
    const moves: Record<string, number> = { ArrowDown: active === last ? 0 : active + 1, ArrowUp: active === 0 ? last : active - 1, Home: 0, End: last };
    if (event.key in moves) {
      event.preventDefault();
      setActive(moves[event.key]!);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
    } else if (event.key === 'Tab') close(false);
  };
  return (
    <div
      class="menu-wrap"
      onFocusOut={(event) => {
        // A click or Tab elsewhere closes the menu.
        if (!(event.currentTarget as HTMLElement).contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        type="button"
        class="button small primary"
        ref={button}
        aria-haspopup="menu"
        aria-expanded={open ? 'true' : 'false'}
        aria-controls="add-component-menu"
        disabled={types.length === 0}
        onClick={() => {
          setActive(0);
          setOpen(!open);
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown') {
            event.preventDefault();
            setActive(0);
            setOpen(true);
          }
        }}
      >
        Add component
      </button>
      {open ? (
        <div role="menu" id="add-component-menu" aria-label="Add component" class="menu" ref={menu} onKeyDown={onKeyDown}>
          {types.map((type, i) => (
            <div
              key={type}
              role="menuitem"
              tabIndex={i === active ? 0 : -1}
              onClick={() => choose(type)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' || event.key === ' ') {
                  event.preventDefault();
                  choose(type);
                }
              }}
            >
              {type}
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}
