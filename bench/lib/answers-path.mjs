/**
 * Where the cached-body baselines (bench/baselines/) serve the count of their
 * answers, as JSON {status: count}; read by bench/lib/answers.mjs. Its own
 * module, so that the baselines import nothing else of the bench.
 */
export const ANSWERS_PATH = '/bench/answers';
