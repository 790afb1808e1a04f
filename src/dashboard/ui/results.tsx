import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { PaywallInfo, PaywallList } from '../../paywalls/schema.ts';
import { call, enc } from './api.ts';
import { Chart } from './results-chart.tsx';
import { ResultsSummary } from './results-summary.tsx';
import { count, type Phase, type PhaseList, percent, type Results, signed } from './results-types.ts';
import { go, href } from './route.ts';
import { Problem, SelectField } from './widgets.tsx';

const interval = (ci: [number, number] | null, format: (n: number) => string) => (ci === null ? '' : `${format(ci[0])} … ${format(ci[1])}`);
const money = (value: number | null) => (value === null ? '—' : value.toFixed(2));
const probability = (value: number | null) => (value === null ? '—' : value < 0.001 ? '< 0.001' : value.toFixed(3));

/**
 * The results page: #/results lists the paywalls; #/results/ID/PHASE/AUDIENCE
 * shows one phase and segment ('-' for the default split).
 */
export function ResultsPage({ secret, route }: { secret: string; route: string[] }): JSX.Element {
  const [paywalls, setPaywalls] = useState<PaywallInfo[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const id = route[1];
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

/** The CSV needs the key in a header, so it is fetched and handed to the browser as a download. */
function DownloadCsv({ secret, path, name }: { secret: string; path: string; name: string }): JSX.Element {
  const [error, setError] = useState<unknown>(null);
  const download = async () => {
    try {
      const response = await fetch(path, { headers: { authorization: `Bearer ${secret}` }, cache: 'no-store' });
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
  const currencies = [...new Set(results.variants.flatMap((variant) => variant.revenue.map((revenue) => revenue.currency)))];
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
      <div class="table-wrap">
        <table class="table results-table">
          <caption class="visually-hidden">Variants of phase {results.phase.number}, compared with the control</caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col" class="number">
                Exposed users
              </th>
              <th scope="col" class="number">
                Conversions
              </th>
              <th scope="col" class="number">
                Conversion (95 % interval)
              </th>
              <th scope="col" class="number">
                Uplift (95 % interval)
              </th>
              <th scope="col" class="number">
                p-value (adjusted)
              </th>
              <th scope="col" class="number">
                Chance to be best
              </th>
              <th scope="col" class="number">
                MDE
              </th>
              {currencies.map((currency) => (
                <th key={currency} scope="col" class="number">
                  Net revenue per user, {currency}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {results.variants.map((variant) => (
              <tr key={variant.variant_id}>
                <th scope="row" data-label="Variant">
                  <code>{variant.variant_id}</code>
                  {variant.variant_id === results.control && <span class="badge">control</span>}
                </th>
                <td class="number" data-label="Exposed users">
                  {variant.exposed_users}
                </td>
                <td class="number" data-label="Conversions">
                  {variant.conversions}
                  {variant.trial_starts > 0 && (
                    <div class="muted small">
                      {count(variant.trial_starts, 'trial')}, {variant.trial_conversions} converted
                    </div>
                  )}
                </td>
                <td class="number" data-label="Conversion">
                  {percent(variant.conversion_rate, 2)}
                  <div class="muted small">{interval(variant.conversion_rate_ci95, (n) => percent(n, 2))}</div>
                </td>
                <td class="number" data-label="Uplift">
                  {variant.uplift ? signed(variant.uplift.relative) : '—'}
                  <div class="muted small">{variant.uplift ? interval(variant.uplift.ci95, signed) : ''}</div>
                </td>
                <td class="number" data-label="p-value (adjusted)">
                  {probability(variant.uplift?.p_value_adjusted ?? null)}
                  <div class="muted small">{variant.uplift ? `raw ${probability(variant.uplift.p_value)}` : ''}</div>
                </td>
                <td class="number" data-label="Chance to be best">
                  {percent(variant.chance_to_be_best)}
                  <div class="muted small">{variant.chance_to_beat_control === null ? '' : `${percent(variant.chance_to_beat_control)} to beat control`}</div>
                </td>
                <td class="number" data-label="MDE">
                  {variant.mde_relative === null ? '—' : `±${percent(variant.mde_relative)}`}
                </td>
                {currencies.map((currency) => {
                  const revenue = variant.revenue.find((entry) => entry.currency === currency);
                  return (
                    <td key={currency} class="number" data-label={`Net revenue per user, ${currency}`}>
                      {money(revenue?.per_exposed_user ?? null)}
                      <div class="muted small">{interval(revenue?.per_exposed_user_ci95 ?? null, money)}</div>
                      {revenue?.uplift && (
                        <div class="muted small">
                          {signed(revenue.uplift.relative)} ({interval(revenue.uplift.ci95, signed)}), p {probability(revenue.uplift.p_value_adjusted)}
                        </div>
                      )}
                      {revenue && (
                        <div class="muted small">
                          net {money(revenue.total)}
                          {revenue.refunded > 0 && ` after ${money(revenue.refunded)} refunded`}
                        </div>
                      )}
                      {revenue?.winsorized_at != null && <div class="muted small">capped at {money(revenue.winsorized_at)} per user</div>}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
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
