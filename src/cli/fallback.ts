import fs from 'node:fs';
import path from 'node:path';
import { configurationServices } from '../context.ts';
import { Logger } from '../log.ts';
import { fallbackBundle } from '../paywalls/fallback/bundle.ts';
import type { CompiledPaywall } from '../paywalls/resolve/compiled.ts';
import { fallbackPlacement } from '../placements/fallback.ts';
import type { ProjectStore } from '../projects/store.ts';
import { type Command, DB_OPTION, DB_OR_URL_HELP, openForCommand, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld fallback --out FILE [--project ID] [--paywall ID]... [--placement ID]... [--db FILE|URL]

Writes the offline fallback bundle an app ships in its binary: for each live
paywall, its default variant's tree in every locale it has, its products with
their id in every store, the live revision and a content hash. It is what
GET /api/sdk/fallback answers; the client shows it when the server cannot be
reached and it has no cached answer.

Options:
  --out FILE    where to write the bundle (JSON); written under a temporary name, then renamed
  --project ID  the project (see: paywalld projects list); needed when the database has several
  --paywall ID  a paywall to include (repeat it); default: every live paywall of the project.
                A named paywall that is not live is an error, and nothing is written
  --placement ID  a placement to include with the live paywalls its rules name (repeat it);
                default, when no --paywall is named either: every placement of the project.
                A named placement that is archived or unknown is an error
${DB_OR_URL_HELP}`;

/** The project to bundle: the one named, or the only one there is. */
async function pickProject(projects: ProjectStore, named: string | undefined): Promise<string> {
  if (named !== undefined) {
    if (!(await projects.get(named))) throw new Error(`there is no project ${named} (see: paywalld projects list)`);
    return named;
  }
  const all = await projects.list();
  if (all.length === 1) return all[0]!.id;
  throw new UsageError(all.length === 0 ? 'the database has no project' : 'the database has several projects: name one with --project ID');
}

function writeAtomically(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, text);
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

export const fallbackCommand: Command = {
  name: 'fallback',
  summary: 'write the offline fallback bundle an app ships with its client',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, {
      ...DB_OPTION,
      out: { type: 'string' },
      project: { type: 'string' },
      paywall: { type: 'string', multiple: true },
      placement: { type: 'string', multiple: true },
    });
    if (values.help) {
      print(help);
      return 0;
    }
    if (positionals.length !== 0) throw new UsageError('fallback takes no positional arguments');
    if (!values.out) throw new UsageError('fallback needs --out FILE');
    const out = path.resolve(values.out);
    const storage = await openForCommand(values.db);
    try {
      const services = await configurationServices(storage, new Logger('error', { sink: (text) => process.stderr.write(text) }));
      const projectId = await pickProject(services.projects, values.project);
      const live = services.paywalls;
      const named = values.paywall !== undefined || values.placement !== undefined;
      const placementIds = values.placement ? [...new Set(values.placement)] : named ? [] : services.placements.ids(projectId);
      const unknown = placementIds.filter((id) => !services.placements.get(projectId, id));
      if (unknown.length > 0) throw new Error(`no placement served in project ${projectId}: ${unknown.join(', ')}`);
      const placements = placementIds.map((id) => fallbackPlacement(services.placements.get(projectId, id)!));
      const ids = values.paywall ? [...new Set(values.paywall)] : named ? [] : live.liveIds(projectId);
      const missing = ids.filter((id) => !live.get(projectId, id));
      if (missing.length > 0) throw new Error(`not live in project ${projectId}: ${missing.join(', ')}`);
      // The paywalls the placements name come along, those that are live (a rule may name one that is not).
      for (const placement of placements) {
        for (const id of [...placement.rules.map((rule) => rule.paywall_id), placement.default ?? ''])
          if (live.get(projectId, id) && !ids.includes(id)) ids.push(id);
      }
      if (ids.length === 0 && placements.length === 0) throw new Error(`project ${projectId} has no live paywall; publish one first`);
      const bundle = fallbackBundle(
        ids.map((id) => live.get(projectId, id) as CompiledPaywall),
        placements.length > 0 ? placements : undefined,
      );
      writeAtomically(out, `${JSON.stringify(bundle)}\n`);
      const names = [
        ...bundle.paywalls.map((p) => `${p.paywall_id} (revision ${p.revision})`),
        ...placements.map((p) => `placement ${p.placement} (revision ${p.revision})`),
      ];
      print(`Wrote ${names.join(', ')} to ${out}`);
      return 0;
    } finally {
      await storage.close();
    }
  },
};
