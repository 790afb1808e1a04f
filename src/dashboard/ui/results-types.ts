/**
 * What the results page reads: GET /api/paywalls/{id}/phases and /results,
 * typed by the server's schemas (`import type`, erased from the bundle), and
 * how it writes their figures.
 */
import type { PhaseList, Results } from '../../experiments/schema.ts';

export type { PhaseList, Results };
export type Phase = PhaseList['phases'][number];
export type DecisionStatus = Results['decision']['status'];

export const percent = (value: number | null, digits = 1) => (value === null ? '—' : `${(value * 100).toFixed(digits)} %`);
export const signed = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)} %`;
export const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
