/**
 * The component types the reference renderer draws; any other type is drawn
 * by its fallback, or not at all. A test holds this list equal to the types
 * the server accepts (COMPONENT_TYPES), so a new type cannot be forgotten here.
 */
export const RENDERED_TYPES = ['stack', 'text', 'image', 'button', 'purchase_button', 'product', 'spacer', 'icon', 'link'] as const;
