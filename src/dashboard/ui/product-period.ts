/**
 * What a product's id and name (and the slot it sits in) say about how it
 * is billed: the catalog keeps no period, the stores do, so the dashboard
 * guesses from the words teams use (annual, monthly, weekly, lifetime…) to
 * pick sample prices and to match a template's slots to the catalog.
 */

export type ProductPeriod = 'P1Y' | 'P6M' | 'P3M' | 'P1M' | 'P1W' | 'lifetime';

const WORDS: readonly [RegExp, ProductPeriod][] = [
  [/life|forever|once|one[-_. ]?time|perpetual|unlock/, 'lifetime'],
  [/6[-_. ]?months?|half|semi/, 'P6M'],
  [/3[-_. ]?months?|quarter/, 'P3M'],
  [/year|annual|12[-_. ]?months?|jahr/, 'P1Y'],
  [/week|woche/, 'P1W'],
  [/month|monat/, 'P1M'],
];

/** The period the words suggest; monthly when they say nothing. */
export function productPeriod(...words: (string | null | undefined)[]): ProductPeriod {
  const text = words.filter(Boolean).join(' ').toLowerCase();
  return WORDS.find(([pattern]) => pattern.test(text))?.[1] ?? 'P1M';
}
