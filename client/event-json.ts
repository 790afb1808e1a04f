/**
 * The event as it will be sent, copied through JSON. An event JSON cannot
 * hold (a circular `properties`, a BigInt) is refused here, while the app's
 * call is on the stack, rather than found by every later batch and storage
 * write; and the copy keeps the queue immune to the app changing the object
 * after track().
 */
export function snapshot<Event>(event: Event): Event {
  let json: string;
  try {
    json = JSON.stringify(event);
  } catch (error) {
    throw new TypeError(`track: the event cannot be sent as JSON (${(error as Error).message})`, { cause: error });
  }
  return JSON.parse(json) as Event;
}
