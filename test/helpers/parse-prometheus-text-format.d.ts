declare module 'parse-prometheus-text-format' {
  /** Parses the Prometheus text exposition into prom2json's shape. */
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
