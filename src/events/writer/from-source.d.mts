// The part of from-source.mjs that TypeScript code imports (test/bundle.ts).
import type { Plugin } from 'esbuild';

export declare const sourceMeta: Plugin;
export declare function runFromSource(entry: URL): Promise<void>;
