/**
 * Response headers joined into one block. uWS writes each writeHeader call
 * into its buffer with a call from JS into C++, and on the resolve hot path
 * those calls were a sixth of the server's CPU. uWS writes `name: value\r\n`
 * verbatim, so one call can carry many headers: the first header's name, and
 * its value followed by the other lines. Blocks are cached per headers
 * object, which the hot paths reuse (a compiled paywall's headers, the CORS
 * headers), so the joining happens once.
 */
export interface HeaderBlock {
  name: string;
  value: string;
}

const blocks = new WeakMap<Readonly<Record<string, string>>, HeaderBlock | null>();
const LINE_BREAK = /[\r\n]/;

/** The headers as one block, null when there are none. Throws on a value with a line break (header injection). */
export function headerBlock(headers: Readonly<Record<string, string>>): HeaderBlock | null {
  let block = blocks.get(headers);
  if (block !== undefined) return block;
  block = null;
  for (const name in headers) {
    const value = headers[name]!;
    if (LINE_BREAK.test(name) || LINE_BREAK.test(value)) throw new Error(`header ${JSON.stringify(name)} contains a line break`);
    if (block === null) block = { name, value };
    else block.value += `\r\n${name}: ${value}`;
  }
  blocks.set(headers, block);
  return block;
}
