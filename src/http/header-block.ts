/**
 * Response headers joined into one block. uWS writes each writeHeader call
 * into its buffer with a call from JS into C++, and on the resolve hot path
 * those calls were a sixth of the server's CPU. uWS writes `name: value\r\n`
 * verbatim, so one call can carry many headers: the first header's name, and
 * its value followed by the other lines. Blocks are cached per headers
 * object, which the hot paths reuse (a compiled paywall's headers, the CORS
 * headers), so the joining happens once; they are kept as UTF-8 bytes, which
 * uWS reads in place, where a string is converted to UTF-8 on every call.
 */
interface HeaderBlock {
  name: Buffer;
  value: Buffer;
}

const blocks = new WeakMap<Readonly<Record<string, string>>, HeaderBlock | null>();
const LINE_BREAK = /[\r\n]/;

/** The headers as one block, null when there are none. Throws on a value with a line break (header injection). */
export function headerBlock(headers: Readonly<Record<string, string>>): HeaderBlock | null {
  let block = blocks.get(headers);
  if (block !== undefined) return block;
  let first: string | undefined;
  let text = '';
  for (const name in headers) {
    const value = headers[name]!;
    if (LINE_BREAK.test(name) || LINE_BREAK.test(value)) throw new Error(`header ${JSON.stringify(name)} contains a line break`);
    if (first === undefined) {
      first = name;
      text = value;
    } else {
      text += `\r\n${name}: ${value}`;
    }
  }
  block = first === undefined ? null : { name: Buffer.from(first), value: Buffer.from(text) };
  blocks.set(headers, block);
  return block;
}

type Headers = Readonly<Record<string, string>>;
const joined = new WeakMap<Headers, WeakMap<Headers, HeaderBlock | null>>();

/**
 * Two sets of headers as one block, `second`'s lines after `first`'s (a name
 * in both is written twice, as two writes would), cached per pair: the
 * resolve hot path writes its CORS headers and its body's headers, both
 * reused objects, with one call.
 */
export function joinedHeaderBlock(first: Headers | undefined, second: Headers | undefined): HeaderBlock | null {
  if (first === undefined) return second === undefined ? null : headerBlock(second);
  if (second === undefined) return headerBlock(first);
  let bySecond = joined.get(first);
  if (!bySecond) joined.set(first, (bySecond = new WeakMap()));
  let block = bySecond.get(second);
  if (block !== undefined) return block;
  const a = headerBlock(first);
  const b = headerBlock(second);
  block = a === null ? b : b === null ? a : { name: a.name, value: Buffer.concat([a.value, Buffer.from('\r\n'), b.name, Buffer.from(': '), b.value]) };
  bySecond.set(second, block);
  return block;
}
