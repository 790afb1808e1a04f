/** A JSON object as the tests read and write them. */
export type Json = Record<string, any>;
