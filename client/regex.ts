/**
 * What the audience conditions use of re2js (src/paywalls/targeting/
 * operators.ts), on the platform's RegExp: the client's build aliases
 * `re2js` to this file (build.mjs), so that the bundle carries no 260 KB
 * engine. The server runs RE2 because anyone's attributes reach its
 * patterns; on a device, the attributes an offline decision tests are the
 * app's own. Patterns were checked as RE2 when written: RE2's syntax is
 * what RegExp takes, less nothing a condition may hold.
 */
export class RE2JS {
  private constructor(private readonly regex: RegExp) {}

  static translateRegExp(source: string): string {
    return source;
  }

  static compile(source: string): RE2JS {
    return new RE2JS(new RegExp(source));
  }

  test(text: string): boolean {
    return this.regex.test(text);
  }
}
