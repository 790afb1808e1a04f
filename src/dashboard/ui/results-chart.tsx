import type { JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Results } from './results-types.ts';

/** Colours of the series, in variant order (readable on white, distinct for common colour blindness). */
const COLOURS = ['#0b6bcb', '#d9480f', '#2b8a3e', '#862e9c', '#5c5f66'];

/**
 * One uPlot chart per figure: a series per variant, one point per UTC day,
 * either the running total or what each day added (the difference of
 * consecutive days: a daily look at the new users, not only the sum).
 * Points are drawn, so a phase of one day shows its day without a line
 * from an invented zero the day before.
 */
export function Chart(props: { title: string; results: Results; field: 'exposed_users' | 'conversions'; daily: boolean }): JSX.Element {
  const { title, results, field, daily } = props;
  const target = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = target.current;
    if (!element || results.days.length === 0) return;
    const ids = results.variants.map((variant) => variant.variant_id);
    const day = (text: string) => Date.parse(`${text}T00:00:00Z`) / 1000;
    const series = (variant: string) => {
      const totals = results.days.map((entry) => entry.variants[variant]?.[field] ?? 0);
      return daily ? totals.map((total, i) => total - (i === 0 ? 0 : totals[i - 1]!)) : totals;
    };
    const data: uPlot.AlignedData = [results.days.map((entry) => day(entry.day)), ...ids.map(series)];
    const width = () => Math.max(240, element.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: {
          // One day: half a day either side, so its point sits in the middle (uPlot would otherwise stretch a single time over years).
          x: results.days.length === 1 ? { range: () => [data[0][0]! - 43_200, data[0][0]! + 43_200] } : {},
          y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] },
        },
        series: [{}, ...ids.map((variant, i) => ({ label: variant, stroke: COLOURS[i % COLOURS.length], width: 2, points: { show: true, size: 6 } }))],
        axes: [{}, { size: 60 }],
      },
      data,
      element,
    );
    // Follows the page's width (a phone turned, a window resized).
    const resized = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resized.observe(element);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [results, field, daily]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {results.days.length === 0 ? (
        <p class="muted">No exposures yet.</p>
      ) : (
        <div ref={target} class="chart-plot" role="img" aria-label={`${title}, per variant`} />
      )}
    </figure>
  );
}
