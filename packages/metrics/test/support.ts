import { parsePrometheusText, type PromText } from '../../../tooling/testing/prometheus.js';

/** GETs `url` over a real socket and reads the answer as Prometheus text. */
export async function scrape(url: string): Promise<PromText & { contentType: string | null }> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`scrape of ${url} answered ${res.status}: ${await res.text()}`);
  return { ...parsePrometheusText(await res.text()), contentType: res.headers.get('content-type') };
}
