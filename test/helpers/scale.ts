/**
 * The size of a scale test (`*.scale.test.ts`): `npm test` runs it at an
 * everyday size, so that the default suite stays minutes; `npm run test:scale`
 * (which .ci/run runs) sets PAYWALLD_TEST_SCALE=1 and runs it at scale.
 */
export const SCALE_VARIABLE = 'PAYWALLD_TEST_SCALE';

/** `everyday` in `npm test` and by hand, `atScale` under `npm run test:scale`. */
export function scaled<T>(everyday: T, atScale: T, env: NodeJS.ProcessEnv = process.env): T {
  return env[SCALE_VARIABLE] === '1' ? atScale : everyday;
}
