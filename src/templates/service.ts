import { DomainError } from '../shared/errors.ts';
import { TEMPLATES } from './catalog.ts';
import type { Template } from './schema.ts';

/** The template gallery: the same for every project, read-only, in memory. */
export class TemplateGallery {
  list(): readonly Template[] {
    return TEMPLATES;
  }

  get(id: string): Template {
    const found = TEMPLATES.find((template) => template.id === id);
    if (!found)
      throw new DomainError('template_not_found', `no template with this id; the gallery has: ${TEMPLATES.map((template) => template.id).join(', ')}`);
    return found;
  }
}
