import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Me } from '../../accounts/schema.ts';
import type { Permission } from '../../shared/roles.ts';
import { Accept } from './accept.tsx';
import { RoleContext, useAccess } from './access.tsx';
import { Activity } from './activity.tsx';
import { call, sessionCredential, whenUnauthorized } from './api.ts';
import { Editor } from './editor/editor.tsx';
import { Keys } from './keys.tsx';
import { Members } from './members.tsx';
import { Paywalls } from './paywalls.tsx';
import { Products } from './products.tsx';
import { ResultsPage } from './results.tsx';
import { go, href, leavePage, useRoute } from './route.ts';
import { chooseProject, chosenProject, forgetKey, rememberKey, storedKey } from './session.ts';
import { SignIn, signedInPerson } from './sign-in.tsx';
import { Webhooks } from './webhooks.tsx';

/** The sections, each with what a role needs to see it: the others are not offered (the page says why if opened by its address). */
const SECTIONS: readonly (readonly [string, string, Permission])[] = [
  ['paywalls', 'Paywalls', 'view'],
  ['results', 'Results', 'view'],
  ['products', 'Products', 'view'],
  ['keys', 'Keys', 'analyze'],
  ['members', 'Members', 'analyze'],
  ['activity', 'Activity', 'analyze'],
  ['webhooks', 'Webhooks', 'analyze'],
];

/** Who this tab is signed in as: a person (their session cookie), a secret key, nobody, or not known yet. */
type Signed = { kind: 'person'; me: Me } | { kind: 'key'; key: string; projectId: string } | null | undefined;

function NotFound(): JSX.Element {
  return (
    <section aria-labelledby="not-found-title">
      <div class="page-head">
        <h1 id="not-found-title">Page not found</h1>
      </div>
      <p class="empty">
        This address is no page of the dashboard: the link may have been cut short or mangled. <a href={href('paywalls')}>Go to the paywalls</a>
      </p>
    </section>
  );
}

export function App(): JSX.Element {
  const stored = storedKey();
  const [signed, setSigned] = useState<Signed>(stored ? { kind: 'key', ...stored } : undefined);
  const [notice, setNotice] = useState<string | null>(null);
  const [project, setProject] = useState(chosenProject);
  const route = useRoute();
  const signedOut = (message: string | null) => {
    forgetKey();
    setSigned(null);
    setNotice(message);
  };
  useEffect(() => {
    if (signed === undefined)
      signedInPerson().then(
        (me) => setSigned(me ? { kind: 'person', me } : null),
        () => setSigned(null),
      );
    whenUnauthorized(() =>
      signedOut(
        storedKey() ? 'Your key stopped working (revoked or unknown). Sign in again.' : 'Your session ended (signed out elsewhere, or expired). Sign in again.',
      ),
    );
  }, []);
  const person = (me: Me) => {
    setNotice(null);
    setSigned({ kind: 'person', me });
  };
  if (route?.[0] === 'accept' && route[1]) {
    return (
      <Accept
        token={route[1]}
        onPerson={(me) => {
          person(me);
          go('paywalls');
        }}
      />
    );
  }
  if (signed === undefined) return <p class="muted loading">Loading…</p>;
  if (signed === null) {
    return (
      <SignIn
        notice={notice}
        onPerson={person}
        onKey={(key, projectId) => {
          rememberKey(key, projectId);
          setNotice(null);
          setSigned({ kind: 'key', key, projectId });
        }}
      />
    );
  }
  const signOut = async () => {
    if (signed.kind === 'person') await call(sessionCredential(''), 'POST', '/api/auth/logout', { signOutOn401: false }).catch(() => {});
    signedOut(signed.kind === 'person' ? 'Signed out.' : 'Signed out. The key was forgotten by this tab.');
  };
  const projects = signed.kind === 'person' ? signed.me.projects : [];
  const current = signed.kind === 'person' ? (projects.find((p) => p.id === project) ?? projects[0]) : undefined;
  if (signed.kind === 'person' && !current) {
    return (
      <main class="sign-in">
        <div class="card">
          <h1>paywalld</h1>
          <p>You are signed in as {signed.me.user.email}, but a member of no project yet: ask an owner to invite you.</p>
          <button type="button" class="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </main>
    );
  }
  const credential = current ? sessionCredential(current.id) : signed.kind === 'key' ? signed.key : '';
  const projectId = current?.id ?? (signed.kind === 'key' ? signed.projectId : '');
  return (
    <RoleContext.Provider value={current?.role ?? null}>
      <Shell
        route={route}
        credential={credential}
        projectId={projectId}
        who={signed.kind === 'person' ? signed.me.user.name : 'a secret key'}
        userId={signed.kind === 'person' ? signed.me.user.id : null}
        projects={projects}
        onProject={(id) =>
          leavePage(() => {
            chooseProject(id);
            setProject(id);
          })
        }
        onSignOut={() => leavePage(signOut)}
      />
    </RoleContext.Provider>
  );
}

function Shell(props: {
  route: string[] | null;
  credential: string;
  projectId: string;
  who: string;
  userId: string | null;
  projects: Me['projects'];
  onProject: (id: string) => void;
  onSignOut: () => void;
}): JSX.Element {
  const { role, can } = useAccess();
  const { route, credential: key, projectId } = props;
  const section = route === null ? null : (route[0] ?? 'paywalls');
  let page: JSX.Element;
  if (route === null) page = <NotFound />;
  else if (section === 'paywalls' && route[1]) page = <Editor key={route[1]} secret={key} id={route[1]} />;
  else if (section === 'results') page = <ResultsPage secret={key} route={route} />;
  else if (section === 'products') page = <Products secret={key} />;
  else if (section === 'keys') page = <Keys secret={key} />;
  else if (section === 'members') page = <Members secret={key} project={projectId} me={props.userId} />;
  else if (section === 'activity') page = <Activity secret={key} project={projectId} />;
  else if (section === 'webhooks') page = <Webhooks secret={key} />;
  else page = <Paywalls secret={key} />;
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('paywalls')}>
          paywalld
        </a>
        <nav aria-label="Sections">
          {SECTIONS.filter(([, , permission]) => can(permission)).map(([id, label]) => (
            <a key={id} href={href(id)} aria-current={section === id ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        {props.projects.length > 1 ? (
          <select
            aria-label="Project"
            value={projectId}
            onChange={(e) => {
              // The select shows the project in use until the page is left for the chosen one.
              const chosen = e.currentTarget.value;
              e.currentTarget.value = projectId;
              props.onProject(chosen);
            }}
          >
            {props.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        ) : null}
        <span class="who">
          <span class="muted small">Signed in as</span> <strong>{props.who}</strong>
          {role ? <span class="badge">{role}</span> : null}
        </span>
        <button type="button" class="button quiet" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </div>
  );
}
