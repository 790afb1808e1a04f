/** The template gallery's public shapes: a template is a complete paywall document with a name and what it shows off. */
import * as v from 'valibot';
import { PaywallSchema } from '../paywalls/document/schema.ts';

export const TemplateSchema = v.object({
  id: v.pipe(v.string(), v.description('What GET /api/templates/{id} and `paywalld templates show` take')),
  name: v.string(),
  description: v.pipe(v.string(), v.description('What the template shows off')),
  document: v.pipe(
    PaywallSchema,
    v.description('A complete paywall document in English and German: its slots name products such as pro_annual, which a project maps to its own'),
  ),
});
export type Template = v.InferOutput<typeof TemplateSchema>;

export const TemplateListSchema = v.object({ templates: v.array(TemplateSchema) });
export type TemplateList = v.InferOutput<typeof TemplateListSchema>;
