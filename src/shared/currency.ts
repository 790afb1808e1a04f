/**
 * ISO 4217 minor-unit exponents that are not 2: a store that reports amounts
 * in minor units (Stripe) is converted to major units by these. Every other
 * active code has two decimals.
 */
const EXPONENTS: Record<string, number> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** The ISO 4217 exponent of an upper-case currency code. */
export function minorUnitExponent(currency: string): number {
  return Object.hasOwn(EXPONENTS, currency) ? EXPONENTS[currency]! : 2;
}

/** An amount in minor units (cents; yen for JPY, exponent 0) in major units. */
export function toMajorUnits(minor: number, exponent: number): number {
  // Rounded to the exponent's digits, so that 1999 cents is exactly 19.99 and not 19.990000000000002.
  return exponent === 0 ? minor : Number((minor / 10 ** exponent).toFixed(exponent));
}
