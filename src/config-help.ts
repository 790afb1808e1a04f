/** The settings as people read them: `serve --help`, its usage line, and the table of docs/reference/configuration.md, each from SETTINGS. */
import { type Name, SETTINGS, type Setting } from './config.ts';

function defaultText(setting: Setting): string {
  return setting.default === undefined ? (setting.none ?? 'none') : setting.default;
}

/** The settings table of docs/reference/configuration.md (markdown), row for row what SETTINGS says. */
export function settingsTable(): string {
  const rows = (Object.entries(SETTINGS) as [Name, Setting][]).map(([name, setting]) => {
    const fallback = setting.default === undefined ? defaultText(setting) : `\`${setting.default}\``;
    const variables = setting.alsoEnv === undefined ? `\`${setting.env}\`` : `\`${setting.env}\`, else \`${setting.alsoEnv}\``;
    return `| \`--${name}\` | ${variables} | ${fallback} | ${setting.help} |`;
  });
  return ['| flag | environment | default | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

const HELP_WIDTH = 78;
const HELP_INDENT = 18;

/** `words` after `start` (which ends where they begin), wrapped at HELP_WIDTH with continuation lines indented. */
function wrap(words: readonly string[], indent: number, start: string): string {
  let out = start;
  let column = start.length - start.lastIndexOf('\n') - 1;
  let fresh = true;
  for (const word of words) {
    if (!fresh && column + 1 + word.length > HELP_WIDTH) {
      out += `\n${' '.repeat(indent)}${word}`;
      column = indent + word.length;
    } else {
      out += (fresh ? '' : ' ') + word;
      column += (fresh ? 0 : 1) + word.length;
    }
    fresh = false;
  }
  return out;
}

/** One option's --help lines: the flag, then its help with the variable and default, wrapped. */
function optionHelp(name: Name): string {
  const setting: Setting = SETTINGS[name];
  const flag = `  --${name}${setting.arg ? ` ${setting.arg}` : ''}`;
  const variables = setting.alsoEnv === undefined ? setting.env : `${setting.env}, else ${setting.alsoEnv}`;
  const text = `${setting.help.replaceAll('`', '')} (env ${variables}, default ${defaultText(setting)})`;
  const first = flag.length < HELP_INDENT - 1 ? flag.padEnd(HELP_INDENT) : `${flag}\n${' '.repeat(HELP_INDENT)}`;
  return wrap(text.split(' '), HELP_INDENT, first);
}

/** The options section of `serve --help`. */
export function settingsHelp(): string {
  return (Object.keys(SETTINGS) as Name[]).map(optionHelp).join('\n');
}

/** The usage line's options: `[--port N] [--require-key] …`. */
export function settingsUsage(): string {
  const parts = (Object.entries(SETTINGS) as [Name, Setting][]).map(
    ([name, setting]) => `[--${name}${setting.arg ? ` ${setting.arg}` : ''}]${setting.kind === 'list' ? '...' : ''}`,
  );
  return wrap(parts, 17, '  paywalld serve ');
}
