/**
 * The Outline: the component tree as an ARIA tree (arrow keys move, Right
 * and Left open and close, Home and End jump; selection follows focus),
 * each item named by its type and its text or id, marked where variants
 * change it. Its toolbar adds a child ("Add component": the types the
 * selected node may hold), moves, duplicates and deletes; items also move
 * by drag and drop.
 */
import { Component, type JSX } from 'preact';
import { useMemo, useRef, useState } from 'preact/hooks';
import { AddMenu } from './add-menu.tsx';
import type { Path } from './json.ts';
import { childTypes } from './new-node.ts';
import { addNode, deleteNode, dropNode, duplicateNode, moveNode } from './node-edits.ts';
import { type OutlineRow, outlineRows, pathId, variantChanges } from './outline-model.ts';
import type { PanelProps } from './panel.ts';
import { defaultLocale, rootOf, stringsOf } from './scope.ts';
import { childrenOf, nodeAt, siblingPlace } from './tree.ts';
import { VOCABULARY } from './vocabulary.ts';

interface RowProps {
  row: OutlineRow;
  selected: boolean;
  focusable: boolean;
  expanded: boolean;
  changed: string;
  draggable: boolean;
  onSelect: (row: OutlineRow) => void;
  onToggle: (row: OutlineRow) => void;
  onDrop: (from: string, row: OutlineRow, where: 'before' | 'after' | 'inside') => void;
}

/** Where a drop lands on a row: its top quarter before it, its bottom quarter after it, between them into it (when it holds children). */
function dropPlace(event: DragEvent): 'before' | 'after' | 'inside' {
  const box = (event.currentTarget as HTMLElement).getBoundingClientRect();
  const at = (event.clientY - box.top) / Math.max(1, box.height);
  return at < 0.25 ? 'before' : at > 0.75 ? 'after' : 'inside';
}

/** One item; drawn again only when what it shows changed, so typing in a 300-node paywall redraws one row. */
class Row extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    const p = this.props;
    return (
      p.row.id !== next.row.id ||
      p.row.name !== next.row.name ||
      p.row.level !== next.row.level ||
      p.row.parent !== next.row.parent ||
      p.row.position !== next.row.position ||
      p.row.siblings !== next.row.siblings ||
      p.selected !== next.selected ||
      p.focusable !== next.focusable ||
      p.expanded !== next.expanded ||
      p.changed !== next.changed ||
      p.draggable !== next.draggable
    );
  }

  override render({ row, selected, focusable, expanded, changed, draggable, onSelect, onToggle, onDrop }: RowProps): JSX.Element {
    const markerId = `outline-changed${row.id.replaceAll('/', '-')}`;
    return (
      // biome-ignore lint/a11y/useKeyWithClickEvents: the tree handles the keys of all its items (one roving focus)
      <div
        role="treeitem"
        id={`outline${row.id.replaceAll('/', '-')}`}
        data-path={row.id}
        class={`outline-item${selected ? ' selected' : ''}`}
        aria-level={row.level}
        aria-posinset={row.position}
        aria-setsize={row.siblings}
        aria-selected={selected ? 'true' : 'false'}
        aria-expanded={row.parent ? (expanded ? 'true' : 'false') : undefined}
        aria-label={row.name}
        aria-describedby={changed ? markerId : undefined}
        tabIndex={focusable ? 0 : -1}
        draggable={draggable}
        onClick={() => onSelect(row)}
        onDragStart={(event) => event.dataTransfer?.setData('text/plain', row.id)}
        onDragOver={(event) => event.preventDefault()}
        onDrop={(event) => {
          event.preventDefault();
          const from = event.dataTransfer?.getData('text/plain');
          if (from !== undefined) onDrop(from, row, dropPlace(event));
        }}
      >
        <span class={`outline-indent level-${Math.min(row.level, 12)}`} aria-hidden="true" />
        {row.parent ? (
          <span
            class="outline-twisty"
            aria-hidden="true"
            onClick={(event) => {
              event.stopPropagation();
              onToggle(row);
            }}
          >
            {expanded ? '▾' : '▸'}
          </span>
        ) : (
          <span class="outline-twisty" aria-hidden="true" />
        )}
        <span class="outline-name">{row.name}</span>
        {changed ? (
          // The badge is drawn by CSS from data-marker, so the item's name stays its type and text; the hidden copy is its description.
          <>
            <span class="badge badge-variant" data-marker={changed} aria-hidden="true" />
            <span id={markerId} hidden>
              {changed}
            </span>
          </>
        ) : null}
      </div>
    );
  }
}

export function Outline(props: PanelProps & { selected: Path; onSelect: (path: Path) => void }): JSX.Element {
  const { doc, scope, locale, edit, readOnly, selected, onSelect } = props;
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const tree = useRef<HTMLDivElement>(null);
  const root = rootOf(doc, scope);
  const strings = useMemo(() => stringsOf(doc, scope), [doc.strings, doc.variants, scope]);
  const rows = useMemo(() => outlineRows(root, strings, locale, defaultLocale(doc), collapsed), [root, strings, locale, collapsed]);
  const changes = useMemo(() => variantChanges(doc, root), [doc.root, doc.variants, root]);
  const selectedId = pathId(selected);
  // The item Tab reaches: the selected one, or the root while the selected one is inside a closed item.
  const focusable = rows.some((row) => row.id === selectedId) ? selectedId : (rows[0]?.id ?? '');
  const node = nodeAt(root, selected);
  const descriptor = VOCABULARY.find((entry) => entry.type === node?.type);
  const place = siblingPlace(selected);

  // Rows not drawn again keep the first callbacks: they read the state of the latest render.
  const latest = useRef({ onSelect, rows, doc, scope, root, readOnly, edit });
  latest.current = { onSelect, rows, doc, scope, root, readOnly, edit };
  const focusRow = (id: string) => requestAnimationFrame(() => tree.current?.querySelector<HTMLElement>(`[data-path="${CSS.escape(id)}"]`)?.focus());
  const placed = (result: { doc: typeof doc; path: Path } | null) => {
    if (!result) return;
    latest.current.edit(result.doc);
    latest.current.onSelect(result.path);
    focusRow(pathId(result.path));
  };
  const { select, toggle, onDrop } = useMemo(
    () => ({
      select: (row: OutlineRow) => {
        latest.current.onSelect(row.path);
        focusRow(row.id);
      },
      toggle: (row: OutlineRow, open?: boolean) =>
        setCollapsed((current) => {
          const next = new Set(current);
          if (open ?? next.has(row.id)) next.delete(row.id);
          else next.add(row.id);
          return next;
        }),
      onDrop: (from: string, row: OutlineRow, where: 'before' | 'after' | 'inside') => {
        const { rows: shown, doc: current, scope: now, root: tree, readOnly: locked } = latest.current;
        const fromPath = shown.find((candidate) => candidate.id === from)?.path;
        const target = siblingPlace(row.path);
        if (locked || !fromPath) return;
        if (where === 'inside' && descriptorOf(tree, row.path)?.children) placed(dropNode(current, now, fromPath, row.path, Number.MAX_SAFE_INTEGER));
        else if (target) placed(dropNode(current, now, fromPath, target.parent, target.index + (where === 'after' ? 1 : 0)));
      },
    }),
    [],
  );

  const onKeyDown = (event: KeyboardEvent) => {
    const index = rows.findIndex((row) => row.id === focusable);
    const row = rows[index];
    if (!row) return;
    const go = (target: OutlineRow | undefined) => {
      if (!target) return;
      event.preventDefault();
      select(target);
    };
    const expanded = row.parent && !collapsed.has(row.id);
    if (event.key === 'ArrowDown') go(rows[index + 1]);
    else if (event.key === 'ArrowUp') go(rows[index - 1]);
    else if (event.key === 'Home') go(rows[0]);
    else if (event.key === 'End') go(rows.at(-1));
    else if (event.key === 'ArrowRight' && row.parent) {
      event.preventDefault();
      if (expanded) go(rows[index + 1]);
      else toggle(row, true);
    } else if (event.key === 'ArrowLeft') {
      event.preventDefault();
      if (expanded) toggle(row, false);
      else
        go(
          rows
            .slice(0, index)
            .reverse()
            .find((candidate) => candidate.level === row.level - 1),
        );
    }
  };

  const holds = childTypes(descriptor, VOCABULARY);
  const full = descriptor?.children?.max !== undefined && (Array.isArray(node?.children) ? node.children.length : 0) >= descriptor.children.max;
  return (
    <section class="outline" aria-labelledby="outline-title">
      <h2 id="outline-title">Outline</h2>
      <fieldset class="plain toolbar" disabled={readOnly !== null}>
        <legend class="visually-hidden">Change the selected component</legend>
        <AddMenu types={full ? [] : holds} onAdd={(type) => placed(addNode(doc, scope, selected, type))} />
        <button type="button" class="button small" disabled={!place || place.index === 0} onClick={() => placed(moveNode(doc, scope, selected, -1))}>
          Move up
        </button>
        <button
          type="button"
          class="button small"
          disabled={!place || place.index >= childrenOf(nodeAt(root, place.parent)).length - 1}
          onClick={() => placed(moveNode(doc, scope, selected, 1))}
        >
          Move down
        </button>
        <button type="button" class="button small" disabled={!place} onClick={() => placed(duplicateNode(doc, scope, selected))}>
          Duplicate
        </button>
        <button
          type="button"
          class="button small danger"
          disabled={selected.length === 0}
          onClick={() => {
            edit(deleteNode(doc, scope, selected));
            const parent = place?.parent ?? selected.slice(0, -1);
            onSelect(parent);
            focusRow(pathId(parent));
          }}
        >
          Delete
        </button>
      </fieldset>
      <p class="muted small" id="outline-help">
        {holds.length === 0 && node
          ? `A ${String(node.type)} holds no components: select a stack to add one. `
          : full
            ? 'This component holds as many as it may. '
            : ''}
        {selected.length === 0
          ? 'The root is the whole paywall: it cannot be moved or deleted.'
          : 'Drag an item to move it; arrow keys move through the outline.'}
      </p>
      <div role="tree" aria-label="Outline" aria-describedby="outline-help" class="outline-tree" ref={tree} onKeyDown={onKeyDown}>
        {rows.map((row) => (
          <Row
            key={row.id}
            row={row}
            selected={row.id === selectedId}
            focusable={row.id === focusable}
            expanded={!collapsed.has(row.id)}
            changed={(changes.get(row.id) ?? []).map((variant) => `changed in variant ${variant}`).join(', ')}
            draggable={readOnly === null && row.path.length > 0 && !row.fallback}
            onSelect={select}
            onToggle={toggle}
            onDrop={onDrop}
          />
        ))}
      </div>
    </section>
  );
}

function descriptorOf(root: ReturnType<typeof rootOf>, path: Path) {
  const node = nodeAt(root, path);
  return VOCABULARY.find((entry) => entry.type === node?.type);
}
