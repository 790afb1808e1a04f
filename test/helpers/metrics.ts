/** Reading the server's /metrics. */
import { bearer } from './server.ts';

/** The value of one series in /metrics (name with its labels, as exposed); undefined while the series is not exposed. */
export async function metric(url: string, secret: string, series: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`, { headers: bearer(secret) })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
