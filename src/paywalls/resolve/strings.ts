import { localeChain, normalizeLocale } from '../targeting/locale.ts';

type Table = Readonly<Record<string, string>>;
type DocumentStrings = Readonly<Record<string, Table>>;

/**
 * A variant's strings, keyed by normalised locale tag, so that requests match
 * whatever case or separator the document's author and the app used.
 * Tables whose tags normalise alike (`pt-br`, `pt-BR`) are merged in document
 * order. Overrides (a variant's strings) are merged over the base per key.
 */
export class LocaleStrings {
  private readonly tables = new Map<string, Record<string, string>>();
  readonly defaultLocale: string;

  constructor(defaultLocale: string, ...layers: (DocumentStrings | undefined)[]) {
    this.defaultLocale = normalizeLocale(defaultLocale) ?? defaultLocale;
    for (const layer of layers) {
      for (const [locale, table] of Object.entries(layer ?? {})) {
        const tag = normalizeLocale(locale) ?? locale;
        this.tables.set(tag, { ...this.tables.get(tag), ...table });
      }
    }
  }

  /** The normalised tags that have a table. */
  locales(): ReadonlySet<string> {
    return new Set(this.tables.keys());
  }

  /**
   * The text of each key for `locale`: from its table, else along its
   * fallback chain (de-AT → de, nb → no), else from the default locale.
   */
  lookup(locale: string): (key: string) => string | undefined {
    const chain: Table[] = [];
    for (const tag of [...localeChain(locale), this.defaultLocale]) {
      const table = this.tables.get(tag);
      if (table && !chain.includes(table)) chain.push(table);
    }
    return (key) => {
      for (const table of chain) if (Object.hasOwn(table, key)) return table[key];
      return undefined;
    };
  }
}
