/**
 * Where a JSON pointer lands in JSON text: the server names problems by
 * pointer, the author reads lines. A small scanner over text that JSON.parse
 * already accepted records where each value starts and ends; a pointer to a
 * member that does not exist (a missing required prop) lands on its nearest
 * existing parent.
 */
interface Span {
  start: number;
  end: number;
  line: number;
}

function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function locate(text: string, pointer: string): Span | undefined {
  const spans = new Map<string, { start: number; end: number }>();
  let pos = 0;
  const skip = () => {
    while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  };
  const string = (): string => {
    const start = pos;
    pos++;
    while (pos < text.length && text[pos] !== '"') pos += text[pos] === '\\' ? 2 : 1;
    pos++;
    return JSON.parse(text.slice(start, pos)) as string;
  };
  const value = (path: string): void => {
    skip();
    const start = pos;
    const c = text[pos];
    if (c === '{') {
      pos++;
      skip();
      while (text[pos] !== '}' && pos < text.length) {
        skip();
        const key = string();
        skip();
        pos++; // ':'
        value(`${path}/${escapeSegment(key)}`);
        skip();
        if (text[pos] === ',') pos++;
        skip();
      }
      pos++;
    } else if (c === '[') {
      pos++;
      skip();
      let index = 0;
      while (text[pos] !== ']' && pos < text.length) {
        value(`${path}/${index++}`);
        skip();
        if (text[pos] === ',') pos++;
        skip();
      }
      pos++;
    } else if (c === '"') {
      string();
    } else {
      while (pos < text.length && /[^\s,\]}]/.test(text[pos]!)) pos++;
    }
    spans.set(path, { start, end: pos });
  };
  try {
    value('');
  } catch {
    return undefined;
  }
  let path = pointer;
  for (;;) {
    const span = spans.get(path);
    if (span) return { ...span, line: lineOf(text, span.start) };
    if (path === '') return undefined;
    path = path.slice(0, path.lastIndexOf('/'));
  }
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The line of a JSON.parse error, from the position V8 puts in its message. */
export function syntaxLine(text: string, message: string): number | undefined {
  const position = /position (\d+)/.exec(message);
  if (position) return lineOf(text, Number(position[1]));
  const line = /line (\d+)/.exec(message);
  return line ? Number(line[1]) : undefined;
}
