import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { whenUnauthorized } from './api.ts';
import { Editor } from './editor/editor.tsx';
import { Keys } from './keys.tsx';
import { Paywalls } from './paywalls.tsx';
import { Products } from './products.tsx';
import { ResultsPage } from './results.tsx';
import { href, useRoute } from './route.ts';
import { forgetKey, rememberKey, storedKey } from './session.ts';
import { SignIn } from './sign-in.tsx';

const SECTIONS = [
  ['paywalls', 'Paywalls'],
  ['results', 'Results'],
  ['products', 'Products'],
  ['keys', 'Keys'],
] as const;

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
  const [key, setKey] = useState(storedKey);
  const [notice, setNotice] = useState<string | null>(null);
  const route = useRoute();
  const signOut = (message: string | null) => {
    forgetKey();
    setKey(null);
    setNotice(message);
  };
  useEffect(() => whenUnauthorized(() => signOut('Your key stopped working (revoked or unknown). Sign in again with a valid secret key.')), []);
  if (!key) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(signedIn) => {
          rememberKey(signedIn);
          setNotice(null);
          setKey(signedIn);
        }}
      />
    );
  }
  const section = route === null ? null : (route[0] ?? 'paywalls');
  let page: JSX.Element;
  if (route === null) page = <NotFound />;
  else if (section === 'paywalls' && route[1]) page = <Editor key={route[1]} secret={key} id={route[1]} />;
  else if (section === 'results') page = <ResultsPage secret={key} route={route} />;
  else if (section === 'products') page = <Products secret={key} />;
  else if (section === 'keys') page = <Keys secret={key} />;
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
          {SECTIONS.map(([id, label]) => (
            <a key={id} href={href(id)} aria-current={section === id ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <button type="button" class="button quiet" onClick={() => signOut('Signed out. The key was forgotten by this tab.')}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </div>
  );
}
