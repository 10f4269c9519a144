// The patient's record (prontuário): a 200-note patient exported as PDF, timed and its memory
// watched, against the same record as TXT (the baseline: the same transaction, index, history events
// and batched reads, without the PDF layout). In this process, through the service the route calls,
// on a fresh Postgres database; the answer's bytes are read to the end as a client would.
// Memory: the heap's peak growth while exporting a 20-note and a 200-note record of the same notes'
// sizes — with the PDF streamed, the 200-note record must not need ten times the 20-note's. Run as
// `node --expose-gc bench/run.ts record` for a GC before each export; without it the heap figures are noisier.

import { performance } from 'node:perf_hooks';
import type { NotesCaller } from '../src/notes/callers.ts';
import { prontuarioService } from '../src/notes/prontuario/prontuario.service.ts';
import { openPostgres } from '../src/platform/db/client.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { createClinicWithKeys } from '../test/helpers/notes.ts';
import { completedNote } from '../test/helpers/record-notes.ts';
import type { BenchDatabase } from './lib/database.ts';
import { fmt, median, type Row } from './lib/report.ts';

const SECTIONS: [string, string][] = [
  ['Anamnese', 'Tutora relata vômitos há três dias, apetite diminuído, sem diarreia. Vacinação em dia; vermifugação há quatro meses.'],
  ['Exame Físico', 'Mucosas róseas, TPC 2 s, desidratação leve (5%), dor à palpação abdominal cranial, linfonodos sem alteração.'],
  ['Diagnóstico', 'Suspeita de gastrite aguda; diferencial com corpo estranho. Solicitado ultrassom abdominal.'],
  ['Tratamento', 'Omeprazol 1 mg/kg a cada 24 h por 7 dias; dieta leve em pequenas porções; fluidoterapia subcutânea na clínica.'],
  ['Seguimento', 'Retorno em 5 dias ou antes se houver piora, vômito persistente ou apatia.'],
];

async function patient(database: Parameters<typeof completedNote>[0], clinicId: string, externalId: string, notes: number) {
  for (let i = 0; i < notes; i++) await completedNote(database, { clinicId, name: 'Tóbi', externalId, sections: SECTIONS });
}

/** Milliseconds to the last byte, and the heap's peak growth over the run (sampled every 5 ms). */
async function exportOnce(run: () => Promise<{ body: NodeJS.ReadableStream }>) {
  globalThis.gc?.();
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  // RSS is not sampled: the heap a run grows stays mapped after a GC, so RSS says little per run.
  const sampler = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 5);
  const started = performance.now();
  const { body } = await run();
  let bytes = 0;
  for await (const chunk of body) bytes += (chunk as Buffer).length;
  const ms = performance.now() - started;
  clearInterval(sampler);
  return { ms, bytes, heap: peakHeap - before.heapUsed };
}

export async function runRecordBench(database: BenchDatabase, rounds = 5): Promise<Row[]> {
  const db = openPostgres(database.url, 4);
  try {
    await runMigrations(db);
    const clinic = await createClinicWithKeys(db);
    await patient(db, clinic.clinicId, 'BENCH-200', 200);
    await patient(db, clinic.clinicId, 'BENCH-20', 20);
    const caller: NotesCaller = { keyId: clinic.viewerId, clinicId: clinic.clinicId, role: 'viewer', permissions: ['notes:read'] };
    const records = prontuarioService({ db: db.db });
    const run = (id: string, format: 'pdf' | 'txt' | 'fhir') => () => records.exportRecord(caller, id, format);
    await exportOnce(run('BENCH-20', 'pdf')); // warm-up: pdfkit's font metrics, the JIT
    const times = async (id: string, format: 'pdf' | 'txt' | 'fhir') => {
      const all = [];
      for (let i = 0; i < rounds; i++) all.push(await exportOnce(run(id, format)));
      return all;
    };
    const pdf200 = await times('BENCH-200', 'pdf');
    const txt200 = await times('BENCH-200', 'txt');
    const pdf20 = await times('BENCH-20', 'pdf');
    const fhir200 = await times('BENCH-200', 'fhir');
    const fhir20 = await times('BENCH-20', 'fhir');
    const med = (runs: { [key: string]: number }[], key: string) => median(runs.map((r) => r[key] ?? 0));
    return [
      {
        measurement: `200-note record as PDF, to the last byte (median of ${rounds}; ${fmt.mb(med(pdf200, 'bytes'))})`,
        value: fmt.ms(med(pdf200, 'ms')),
        baseline: fmt.ms(med(txt200, 'ms')),
        ratio: fmt.ratio(med(pdf200, 'ms') / med(txt200, 'ms')),
        target: '< 2000 ms',
      },
      {
        measurement: '200-note PDF vs 20-note PDF, time',
        value: fmt.ms(med(pdf200, 'ms')),
        baseline: fmt.ms(med(pdf20, 'ms')),
        ratio: fmt.ratio(med(pdf200, 'ms') / med(pdf20, 'ms')),
      },
      {
        measurement: 'peak heap growth while exporting: 200-note PDF vs 20-note PDF',
        value: fmt.mb(med(pdf200, 'heap')),
        baseline: fmt.mb(med(pdf20, 'heap')),
        ratio: fmt.ratio(med(pdf200, 'heap') / med(pdf20, 'heap')),
        target: 'well under 10× (streamed)',
      },
      {
        measurement: `200-note record as FHIR R4, to the last byte (median of ${rounds}; ${fmt.mb(med(fhir200, 'bytes'))})`,
        value: fmt.ms(med(fhir200, 'ms')),
        baseline: fmt.ms(med(txt200, 'ms')),
        ratio: fmt.ratio(med(fhir200, 'ms') / med(txt200, 'ms')),
        target: '< 2000 ms',
      },
      {
        measurement: 'peak heap growth while exporting: 200-note FHIR vs 20-note FHIR',
        value: fmt.mb(med(fhir200, 'heap')),
        baseline: fmt.mb(med(fhir20, 'heap')),
        ratio: fmt.ratio(med(fhir200, 'heap') / med(fhir20, 'heap')),
        target: 'well under 10× (streamed)',
      },
    ];
  } finally {
    await db.close();
  }
}
