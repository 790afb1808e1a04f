import { productPeriod } from './product-period.ts';

/**
 * The catalog's product for each slot of a template: the product with the
 * template's id if the catalog has it, else one billed the same way (by
 * productPeriod), else the next one not used yet, else the first.
 */
export function matchSlots(slots: Readonly<Record<string, string>>, products: readonly { id: string; name: string }[]): Record<string, string> {
  const matched: Record<string, string> = {};
  const used = new Set<string>();
  const take = (slot: string, id: string | undefined) => {
    if (id === undefined) return;
    matched[slot] = id;
    used.add(id);
  };
  for (const [slot, wanted] of Object.entries(slots)) {
    if (products.some((product) => product.id === wanted)) take(slot, wanted);
  }
  for (const [slot, wanted] of Object.entries(slots)) {
    if (Object.hasOwn(matched, slot)) continue;
    const period = productPeriod(slot, wanted);
    const free = products.filter((product) => !used.has(product.id));
    take(slot, (free.find((product) => productPeriod(product.id, product.name) === period) ?? free[0] ?? products[0])?.id);
  }
  return matched;
}
