import type { Path } from '../../shared/pointer.ts';
import type { ComponentNode } from './components.ts';

interface VisitedNode {
  node: ComponentNode;
  path: Path;
  /** Whether the node is (inside) a fallback, which only apps too old for its original see. */
  inFallback: boolean;
}

/** Every node of a parsed tree, fallbacks included, in document order (children before a node's fallback). */
export function* walkTree(root: ComponentNode, rootPath: Path): Generator<VisitedNode> {
  const stack: VisitedNode[] = [{ node: root, path: rootPath, inFallback: false }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    yield visit;
    const { node, path, inFallback } = visit;
    if (node.fallback) stack.push({ node: node.fallback, path: [...path, 'fallback'], inFallback: true });
    if (node.type === 'stack' && node.children) {
      for (let i = node.children.length - 1; i >= 0; i--) {
        stack.push({ node: node.children[i]!, path: [...path, 'children', i], inFallback });
      }
    }
  }
}
