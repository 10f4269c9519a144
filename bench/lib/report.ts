// Formatting and statistics shared by the scenarios. Benchmarks print; they never assert.

export interface Row {
  measurement: string;
  value: string;
  baseline: string;
  ratio: string;
  target?: string;
}

export const MB = 1_000_000;

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile of `values` (p in 0-100). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export const fmt = {
  mbps: (value: number) => `${value.toFixed(0)} MB/s`,
  mb: (bytes: number) => `${(bytes / MB).toFixed(1)} MB`,
  ms: (value: number) => `${value < 10 ? value.toFixed(1) : value.toFixed(0)} ms`,
  ratio: (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '—'),
  perSecond: (value: number, unit: string) => `${value.toFixed(1)} ${unit}/s`,
};

export function printTable(title: string, rows: Row[]): void {
  const header: Row = { measurement: 'measurement', value: 'value', baseline: 'baseline', ratio: 'ratio', target: 'target' };
  const all = [header, ...rows];
  const width = (key: keyof Row) => Math.max(...all.map((row) => (row[key] ?? '').length));
  const widths = (['measurement', 'value', 'baseline', 'ratio', 'target'] as const).map((key) => [key, width(key)] as const);
  const line = (row: Row) =>
    widths
      .map(([key, w]) => (key === 'measurement' ? (row[key] ?? '').padEnd(w) : (row[key] ?? '').padStart(w)))
      .join('  ')
      .trimEnd();
  process.stdout.write(`\n${title}\n${line(header)}\n${widths.map(([, w]) => '-'.repeat(w)).join('  ')}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

const startedAt = performance.now();
/** A progress line on stderr, so stdout stays the report. */
export function progress(message: string): void {
  process.stderr.write(`[bench ${((performance.now() - startedAt) / 1000).toFixed(1)} s] ${message}\n`);
}
