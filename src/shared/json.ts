/** A value JSON.parse can return: what a request body is before a schema or a service has checked it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
