import parsePrometheusTextFormat from 'parse-prometheus-text-format';

// A scrape of a /metrics listener, parsed by a Prometheus text-format parser (prom2json's shape).
// The parser folds every series of a histogram into one (it predates labelled histograms), so
// histograms are parsed as their plain series: `name_bucket`, `name_sum` and `name_count`.

interface Sample {
  labels?: Record<string, string>;
  value?: string;
  count?: string;
  sum?: string;
  buckets?: Record<string, string>;
}
interface Family {
  name: string;
  help: string;
  type: string;
  metrics: Sample[];
}

export interface Scrape {
  readonly text: string;
  readonly families: Map<string, Family>;
  /** The value of a counter or gauge (a histogram's count) whose labels include `labels`; 0 when absent. */
  value(name: string, labels?: Record<string, string>): number;
  /** A histogram's sum over the samples whose labels include `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
  /** Label sets (series) of a family. */
  series(name: string): number;
  /** Every label value in the exposition (`le` of histogram buckets included). */
  labelValues(): string[];
}

export async function scrape(port: number): Promise<Scrape> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return parseScrape(await response.text());
}

export function parseScrape(text: string): Scrape {
  const histograms = new Set([...text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((match) => match[1]!));
  const plain = text.replace(/^# TYPE \S+ histogram\n/gm, '');
  // A histogram's series come one label set at a time (buckets, sum, count): the same plain
  // family name recurs, so its runs are merged.
  const families = new Map<string, Family>();
  for (const family of parsePrometheusTextFormat(plain) as Family[]) {
    const known = families.get(family.name);
    if (known) known.metrics.push(...family.metrics);
    else families.set(family.name, family);
  }
  const matching = (name: string, labels: Record<string, string>) =>
    (families.get(histograms.has(name) ? `${name}_count` : name)?.metrics ?? []).filter((sample) =>
      Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value),
    );
  return {
    text,
    families,
    value: (name, labels = {}) => matching(name, labels).reduce((total, sample) => total + Number(sample.value ?? sample.count ?? 0), 0),
    sum: (name, labels = {}) =>
      (families.get(`${name}_sum`)?.metrics ?? [])
        .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value))
        .reduce((total, sample) => total + Number(sample.value ?? 0), 0),
    series: (name) => families.get(histograms.has(name) ? `${name}_count` : name)?.metrics.length ?? 0,
    labelValues: () => [...families.values()].flatMap((family) => family.metrics.flatMap((sample) => Object.values(sample.labels ?? {}))),
  };
}
