/** The values of a product's price variables, formatted with Intl in the paywall's locale. */
import type { PriceVariableName, StorePrice } from './types.ts';

interface Duration {
  years: number;
  months: number;
  weeks: number;
  days: number;
}

/** The ISO 8601 durations stores use for periods: P1Y, P6M, P1W, P3D, and combinations such as P1Y6M. */
const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?$/;

function parseDuration(text: string | undefined): Duration | undefined {
  const match = text === undefined || text === 'P' ? null : DURATION.exec(text);
  if (!match) return undefined;
  const [years, months, weeks, days] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number];
  return years + months + weeks + days > 0 ? { years, months, weeks, days } : undefined;
}

/** A year is 365 days and a month a twelfth of it, so that per-month and per-week prices agree with each other. */
function lengthInDays(duration: Duration): number {
  return duration.years * 365 + (duration.months * 365) / 12 + duration.weeks * 7 + duration.days;
}

const UNITS = [
  ['years', 'year'],
  ['months', 'month'],
  ['weeks', 'week'],
  ['days', 'day'],
] as const;

/** "1 year", "3 Monate"; with `bare`, a count of one drops its number: "year", "Monat" (as in "49,99 € pro Jahr"). */
function formatDuration(duration: Duration, locale: string | undefined, bare: boolean): string {
  const parts: string[] = [];
  for (const [field, unit] of UNITS) {
    const count = duration[field];
    if (count === 0) continue;
    const format = new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' });
    parts.push(
      bare && count === 1
        ? format
            .formatToParts(1)
            .filter((part) => part.type === 'unit')
            .map((part) => part.value)
            .join('')
        : format.format(count),
    );
  }
  return parts.join(' ');
}

function times(duration: Duration, cycles: number): Duration {
  return { years: duration.years * cycles, months: duration.months * cycles, weeks: duration.weeks * cycles, days: duration.days * cycles };
}

/** A tag Intl accepts, else the runtime's default locale. */
export function intlLocale(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/** What a price costs per month (a year is 365 days, a month a twelfth of it); undefined without a usable amount and period. */
export function monthlyAmount(price: StorePrice | undefined): number | undefined {
  const period = parseDuration(price?.period);
  if (!price || !period || typeof price.amount !== 'number' || !Number.isFinite(price.amount) || price.amount < 0) return undefined;
  return (price.amount * 365) / 12 / lengthInDays(period);
}

/**
 * How much cheaper per month `price` is than `other`, as a whole percent in
 * the locale ("58%", "58 %"), rounded down so that it never promises more;
 * undefined when either has no monthly amount, the currencies differ or it
 * is not at least 1 % cheaper.
 */
export function savings(price: StorePrice | undefined, other: StorePrice | undefined, locale: string | undefined): string | undefined {
  const mine = monthlyAmount(price);
  const theirs = monthlyAmount(other);
  if (mine === undefined || theirs === undefined || theirs <= 0 || price!.currency !== other!.currency) return undefined;
  const percent = Math.floor((1 - mine / theirs) * 100 + 1e-9);
  return percent >= 1 ? new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 }).format(percent / 100) : undefined;
}

/**
 * The values of the price variables of a product with this store price, in
 * this locale: only those that apply (no per-month price without a period,
 * no trial or introductory price unless the user is eligible). Undefined
 * when the price cannot be used: no amount, or a currency Intl does not know.
 */
export function priceValues(price: StorePrice | undefined, locale: string | undefined): Partial<Record<PriceVariableName, string>> | undefined {
  if (!price || typeof price.amount !== 'number' || !Number.isFinite(price.amount) || price.amount < 0) return undefined;
  let money: Intl.NumberFormat;
  try {
    money = new Intl.NumberFormat(locale, { style: 'currency', currency: price.currency });
  } catch {
    return undefined;
  }
  const values: Partial<Record<PriceVariableName, string>> = { price: money.format(price.amount) };
  const period = parseDuration(price.period);
  if (period) {
    const days = lengthInDays(period);
    values.period = formatDuration(period, locale, true);
    values.price_per_month = money.format((price.amount * 365) / 12 / days);
    values.price_per_week = money.format((price.amount * 7) / days);
  }
  if (price.eligible_for_intro === true) {
    const trial = parseDuration(price.trial);
    if (trial) values.trial = formatDuration(trial, locale, false);
    const intro = price.intro;
    const introPeriod = parseDuration(intro?.period);
    if (intro && introPeriod && Number.isFinite(intro.amount) && intro.amount >= 0 && Number.isInteger(intro.cycles) && intro.cycles > 0) {
      values.intro_price = money.format(intro.amount);
      values.intro_period = formatDuration(times(introPeriod, intro.cycles), locale, false);
    }
  }
  return values;
}
