/**
 * One name or value of a query string decoded exactly as URLSearchParams
 * decodes it (WHATWG application/x-www-form-urlencoded: `+` is a space,
 * percent-escapes are UTF-8 bytes, broken escapes stay as written and broken
 * UTF-8 becomes U+FFFD). Shared by the edge's query parser
 * (src/http/query.ts) and the resolve hot path, which scans its raw query
 * itself.
 */
const NEEDS_DECODING = /[%+]/;
const HEX = /^[0-9A-Fa-f]{2}$/;

export function decodeComponent(text: string): string {
  if (!NEEDS_DECODING.test(text)) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '+') {
      bytes.push(0x20);
    } else if (char === '%' && HEX.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      const code = text.codePointAt(i)!;
      if (code > 0xffff) i++;
      for (const byte of Buffer.from(String.fromCodePoint(code))) bytes.push(byte);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
