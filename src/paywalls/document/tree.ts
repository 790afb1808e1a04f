import type { Path } from '../../shared/pointer.ts';
import type { ComponentNode } from './components.ts';

interface VisitedNode {
  node: ComponentNode;
  path: Path;
  /** Whether the node is (inside) a fallback, which only apps too old for its original see. */
  inFallback: boolean;
  /** The node whose child it is (not set for a root or a fallback). */
  parent?: ComponentNode;
}

/** Every node of a parsed tree, fallbacks included, in document order (children before a node's fallback). */
export function* walkTree(root: ComponentNode, rootPath: Path): Generator<VisitedNode> {
  const stack: VisitedNode[] = [{ node: root, path: rootPath, inFallback: false }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    yield visit;
    const { node, path, inFallback } = visit;
    if (node.fallback) stack.push({ node: node.fallback, path: [...path, 'fallback'], inFallback: true });
    const children = 'children' in node ? node.children : undefined;
    if (children) {
      for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, path: [...path, 'children', i], inFallback, parent: node });
    }
  }
}
