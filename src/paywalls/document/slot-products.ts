/** The products a paywall document puts in a slot, its own and its variants': what must exist for it to be stored or go live. */
export function slotProducts(document: unknown): string[] {
  const slotsOf = (owner: unknown): string[] => {
    const slots = typeof owner === 'object' && owner !== null ? (owner as { slots?: unknown }).slots : undefined;
    return typeof slots === 'object' && slots !== null ? Object.values(slots).filter((id): id is string => typeof id === 'string') : [];
  };
  const variants = (document as { variants?: unknown } | null)?.variants;
  return [...new Set([...slotsOf(document), ...(Array.isArray(variants) ? variants.flatMap(slotsOf) : [])])];
}
