/** The statistics' variant of events without one (a client that sends this id is counted with them). */
export const UNKNOWN_VARIANT = 'unknown';
