/** Numbers as the tables show them. */
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export const perSecond = (value, unit) => `${grouped.format(value)} ${unit}/s`;
export const ms = (value) => (value === undefined ? '—' : `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`);
export const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
export const ratio = (value) => (value === undefined ? '—' : `${value.toFixed(2)}×`);
export const count = (value) => grouped.format(value);
export const list = (values, format) => values.map(format).join(' / ');
export const percent = (share) => `${(share * 100).toFixed(0)} %`;
/** An event or user count as the scenarios name their sizes: 100 k, 1 M, 10 M. */
export const size = (n) => (n >= 1_000_000 ? `${n / 1_000_000} M` : `${n / 1000} k`);
