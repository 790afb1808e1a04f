/** A JSON body of exactly `size` bytes (at least 12), for the cached-body baselines. */
export function bodyOfSize(size) {
  const frame = '{"pad":""}';
  return Buffer.from(`{"pad":"${'x'.repeat(Math.max(0, size - frame.length))}"}`);
}
