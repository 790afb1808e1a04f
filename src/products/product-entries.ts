import type { ChangeEntry } from '../shared/change.ts';
import type { ProductWrite } from './schema.ts';

/** The audit entries of the product stores' changes. */
export function productWritten(projectId: string, id: string, write: ProductWrite, created: boolean): ChangeEntry {
  const summary = `${created ? 'created' : 'replaced'} product ${id} (${write.name})`;
  return { project: projectId, action: 'product.written', target: { type: 'product', id }, summary };
}

export function productDeleted(projectId: string, id: string): ChangeEntry {
  return { project: projectId, action: 'product.deleted', target: { type: 'product', id }, summary: `deleted product ${id}` };
}
