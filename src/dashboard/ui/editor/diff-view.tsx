import type { JSX } from 'preact';
import { diffLines, folded } from './diff.ts';

export function DiffView({ before, after, label }: { before: string; after: string; label: string }): JSX.Element {
  const lines = folded(diffLines(before, after));
  const changed = lines.some((line) => line.op === '+' || line.op === '-');
  return (
    <figure class="diff" aria-label={label}>
      <figcaption>{label}</figcaption>
      {changed ? (
        <pre>
          {lines.map((line, i) =>
            line.op === '…' ? (
              <span key={i} class="diff-fold">{`   … ${line.count} unchanged line${line.count === 1 ? '' : 's'}\n`}</span>
            ) : (
              <span key={i} class={line.op === '+' ? 'diff-add' : line.op === '-' ? 'diff-del' : undefined}>{`${line.op} ${line.text}\n`}</span>
            ),
          )}
        </pre>
      ) : (
        <p class="muted">No differences.</p>
      )}
    </figure>
  );
}
