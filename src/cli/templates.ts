import { TemplateGallery } from '../templates/service.ts';
import { type Command, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld templates [--json]
  paywalld templates show ID

Lists the template gallery: complete paywall documents (English and German)
to start from, the same GET /api/templates serves. show prints one
template's document, exactly a body for PUT /api/paywalls/{id} or a file of
a configuration directory's paywalls/ (map its slots to your products first):

  paywalld templates show annual-vs-monthly > config/paywalls/onboarding.json

Needs no database and no server.

Options:
  --json        print {"templates":[{"id","name","description"}]} instead of text`;

export const templatesCommand: Command = {
  name: 'templates',
  summary: 'list the template gallery, or print one template',
  help,
  run(argv) {
    const { values, positionals } = parse(argv, { json: { type: 'boolean' } });
    if (values.help) {
      print(help);
      return 0;
    }
    const gallery = new TemplateGallery();
    const [sub, ...rest] = positionals;
    if (sub === undefined) {
      const listed = gallery.list().map(({ id, name, description }) => ({ id, name, description }));
      if (values.json) print(JSON.stringify({ templates: listed }));
      else {
        const width = Math.max(...listed.map((template) => template.id.length));
        for (const template of listed) print(`${template.id.padEnd(width)}  ${template.name}: ${template.description}`);
      }
      return 0;
    }
    if (sub !== 'show') throw new UsageError(`unknown subcommand "templates ${sub}"; use "templates" or "templates show ID"`);
    if (rest.length !== 1) throw new UsageError('templates show takes exactly one template ID (see: paywalld templates)');
    print(JSON.stringify(gallery.get(rest[0]!).document, null, 2));
    return 0;
  },
};
