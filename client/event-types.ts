import type { KnownEventType } from './types.generated.ts';

declare const custom: unique symbol;

/** An event type paywalld does not know, made with customEventType(): the explicit way past the KnownEventType union. */
export type CustomEventType = string & { readonly [custom]: true };

/** What track() takes as `type`. */
export type EventType = KnownEventType | CustomEventType;

const EVENT_TYPE = /^[a-z][a-z0-9_]{0,63}$/;

/** An event type of the app's own (`[a-z][a-z0-9_]{0,63}`): stored and counted like the known ones. */
export function customEventType(name: string): CustomEventType {
  if (!EVENT_TYPE.test(name)) throw new TypeError('an event type must match [a-z][a-z0-9_]{0,63}');
  return name as CustomEventType;
}

type Letter =
  | 'A'
  | 'B'
  | 'C'
  | 'D'
  | 'E'
  | 'F'
  | 'G'
  | 'H'
  | 'I'
  | 'J'
  | 'K'
  | 'L'
  | 'M'
  | 'N'
  | 'O'
  | 'P'
  | 'Q'
  | 'R'
  | 'S'
  | 'T'
  | 'U'
  | 'V'
  | 'W'
  | 'X'
  | 'Y'
  | 'Z';

/** An ISO 4217 currency code: three capital letters ('USD', 'EUR', 'JPY'). */
export type CurrencyCode = `${Letter}${Letter}${Letter}`;
