/**
 * Records what every test server answers, for the check that the OpenAPI
 * document declares each of them (test/openapi/declared-answers.check.ts).
 * The suite runner (test/suite.ts) names a fresh directory in
 * PAYWALLD_TEST_ANSWERS; each test process writes the distinct answers it saw
 * to a file of its own when it exits, so files running in parallel never
 * share a file, and the check reads them all once every file has finished.
 * Without the variable (one test file run by hand) nothing is recorded.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Answer, StartOptions } from '../../src/app.ts';
import { sourceOfBundle } from './bundles.ts';

/** An answer as recorded: [method, pattern] of the route (null when none matched), status, problem code or null. */
export type RecordedAnswer = [method: string | null, pattern: string | null, status: number, problem: string | null];

export const ANSWERS_DIR_VARIABLE = 'PAYWALLD_TEST_ANSWERS';

const directory = process.env[ANSWERS_DIR_VARIABLE];
const seen = new Set<string>();

if (directory) {
  process.on('exit', () => {
    const file = sourceOfBundle(path.relative(process.cwd(), process.argv[1] ?? 'unknown'));
    const answers = [...seen].map((answer) => JSON.parse(answer) as RecordedAnswer);
    fs.writeFileSync(path.join(directory, `${process.pid}.json`), JSON.stringify({ file, answers }));
  });
}

function record(answer: Answer): void {
  seen.add(JSON.stringify([answer.route?.method ?? null, answer.route?.pattern ?? null, answer.status, answer.problem ?? null] satisfies RecordedAnswer));
}

/** The start options a test server is started with. */
export const recordingOptions: StartOptions = directory ? { onAnswer: record } : {};
