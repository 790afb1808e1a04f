import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { PaywallInfo, PaywallList } from '../../paywalls/schema.ts';
import { authHeaders, call, enc } from './api.ts';
import { Chart } from './results-chart.tsx';
import { ResultsSummary } from './results-summary.tsx';
import { VariantsTable } from './results-table.tsx';
import { count, type Phase, type PhaseList, type Results } from './results-types.ts';
import { go, href } from './route.ts';
import { Problem, SelectField } from './widgets.tsx';

/**
 * The results page: #/results lists the paywalls; #/results/ID/PHASE/AUDIENCE
 * shows one phase and segment ('-' for the default split).
 */
export function ResultsPage({ secret, route }: { secret: string; route: string[] }): JSX.Element {
  const [paywalls, setPaywalls] = useState<PaywallInfo[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  // With a single published paywall there is nothing to choose: its results open at once.
  const id = route[1] ?? (paywalls?.length === 1 ? paywalls[0]!.id : undefined);
  useEffect(() => {
    call<PaywallList>(secret, 'GET', '/api/paywalls')
      .then(({ body }) => setPaywalls(body.paywalls.filter((paywall) => paywall.status !== 'draft')))
      .catch(setError);
  }, [secret]);
  return (
    <section aria-labelledby="results-title">
      <div class="page-head">
        <h1 id="results-title">Results</h1>
        {paywalls && paywalls.length > 0 && (
          <SelectField
            id="results-paywall"
            label="Paywall"
            value={id ?? ''}
            onChange={(chosen) => go('results', chosen)}
            options={paywalls.map((paywall) => ({ value: paywall.id, label: `${paywall.name} (${paywall.id})` }))}
            leading={
              <option value="" disabled>
                Choose a paywall
              </option>
            }
          />
        )}
      </div>
      <Problem error={error} />
      {paywalls === null ? (
        <p class="muted">Loading…</p>
      ) : paywalls.length === 0 ? (
        <p class="empty">No published paywall yet: results start with the first publish.</p>
      ) : id === undefined ? (
        <p class="muted">Choose a paywall to see which variant wins.</p>
      ) : (
        <PaywallResults key={id} secret={secret} id={id} phaseParam={route[2]} audienceParam={route[3]} />
      )}
    </section>
  );
}

function PaywallResults({ secret, id, phaseParam, audienceParam }: { secret: string; id: string; phaseParam?: string; audienceParam?: string }): JSX.Element {
  const [phases, setPhases] = useState<Phase[] | null>(null);
  const [results, setResults] = useState<Results | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Read again when the URL names another phase or segment: a phase started since the page opened is then listed.
  useEffect(() => {
    call<PhaseList>(secret, 'GET', `/api/paywalls/${enc(id)}/phases`)
      .then(({ body }) => setPhases(body.phases))
      .catch(setError);
  }, [secret, id, phaseParam, audienceParam]);
  const phase = phases && (phases.find((candidate) => String(candidate.number) === phaseParam) ?? phases.at(-1));
  const audience = audienceParam && audienceParam !== '-' ? audienceParam : null;
  useEffect(() => {
    if (!phase) return;
    setResults(null);
    setError(null);
    const query = new URLSearchParams({ phase: String(phase.number) });
    if (audience !== null) query.set('audience', audience);
    call<Results>(secret, 'GET', `/api/paywalls/${enc(id)}/results?${query}`)
      .then(({ body }) => setResults(body))
      .catch(setError);
  }, [secret, id, phase?.number, audience]);
  if (phases === null) return error ? <Problem error={error} /> : <p class="muted">Loading…</p>;
  if (!phase) return <p class="empty">This paywall has no phase yet: publish it to start measuring.</p>;
  const segments = [null, ...Object.keys(phase.audiences)];
  const csv = `/api/paywalls/${enc(id)}/results?${new URLSearchParams({ phase: String(phase.number), ...(audience === null ? {} : { audience }), format: 'csv' })}`;
  return (
    <div class="results">
      <div class="fields card">
        <SelectField
          id="results-phase"
          label="Phase"
          value={String(phase.number)}
          onChange={(chosen) => go('results', id, chosen, audience ?? '-')}
          options={phases.map((candidate) => ({
            value: String(candidate.number),
            label: `${candidate.number}: from ${candidate.started_at.slice(0, 10)}${candidate.ended_at ? ` to ${candidate.ended_at.slice(0, 10)}` : ' (current)'}`,
          }))}
        />
        <SelectField
          id="results-segment"
          label="Segment"
          value={audience ?? '-'}
          onChange={(chosen) => go('results', id, String(phase.number), chosen)}
          options={segments.map((segment) => ({ value: segment ?? '-', label: segment === null ? 'Default split' : `Audience ${segment}` }))}
        />
        <a class="button quiet" href={href('paywalls', id)}>
          Edit paywall
        </a>
        <DownloadCsv secret={secret} path={csv} name={`${id}-phase-${phase.number}-results.csv`} />
      </div>
      <Problem error={error} />
      {results === null ? error ? null : <p class="muted">Loading results…</p> : <ResultsView results={results} />}
    </div>
  );
}

/** The CSV needs the key (or a session's project) in a header, so it is fetched and handed to the browser as a download. */
function DownloadCsv({ secret, path, name }: { secret: string; path: string; name: string }): JSX.Element {
  const [error, setError] = useState<unknown>(null);
  const download = async () => {
    try {
      const response = await fetch(path, { headers: authHeaders(secret), cache: 'no-store', credentials: 'same-origin' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <>
      <button type="button" class="button quiet" onClick={download}>
        Download CSV
      </button>
      <Problem error={error} />
    </>
  );
}

function ResultsView({ results }: { results: Results }): JSX.Element {
  const { srm } = results;
  const nobody = results.variants.every((variant) => variant.exposed_users === 0);
  const [daily, setDaily] = useState(true);
  return (
    <>
      {srm.ok === false && (
        <div class="banner banner-error" role="alert">
          <strong>Sample ratio mismatch</strong> (p = {srm.p_value?.toExponential(2)}): users did not arrive in the published proportions (
          {Object.keys(srm.observed)
            .map((variant) => `${variant}: ${srm.observed[variant]} seen, ${srm.expected[variant]!.toFixed(0)} expected`)
            .join('; ')}
          ). The split itself is broken; fix it before trusting these results.
        </div>
      )}
      <ResultsSummary results={results} />
      {nobody && (
        <p class="banner banner-info" role="status">
          No user has been exposed in this phase yet. It started {results.phase.started_at.slice(0, 16).replace('T', ' ')} UTC: impressions sent before that,
          for example before the publish that started it, are counted in the phase before (or in none before the first publish), not here.
        </p>
      )}
      <VariantsTable results={results} />
      {results.multiple_exposure_users > 0 && (
        <p class="muted small">
          {count(results.multiple_exposure_users, 'user')} saw more than one variant and {results.multiple_exposure_users === 1 ? 'is' : 'are'} left out of
          every variant.
        </p>
      )}
      <div class="row chart-mode">
        <label class="small">
          <input type="checkbox" checked={daily} onChange={(event) => setDaily((event.target as HTMLInputElement).checked)} /> Per day (uncheck for running
          totals)
        </label>
      </div>
      <div class="charts">
        <Chart title={daily ? 'New exposed users per day' : 'Exposed users, cumulative'} results={results} field="exposed_users" daily={daily} />
        <Chart title={daily ? 'Conversions per day' : 'Conversions, cumulative'} results={results} field="conversions" daily={daily} />
      </div>
    </>
  );
}
