// Spoken section headings and speaker labels of pt-BR consultations, written accent-free and
// lower-case because matching runs on folded text (fold.ts), so "Diagnóstico" and "diagnostico"
// (a common ASR spelling) match alike. Sentence splitting cuts at them; the sectioner model reads them.

import type { SectionLabel } from './sections.ts';

/** Spoken headings. Followed by ":", "-", ",", "." or nothing else, they are stripped and "stick". */
const HEADINGS: Record<SectionLabel, string[]> = {
  anamnesis: [
    'anamnese',
    'historico(?: clinico)?',
    'historia(?: clinica)?',
    'queixa(?: principal)?',
    'motivo da consulta',
    'identificacao(?: do paciente)?',
  ],
  physical_exam: [
    'exame fisico(?: geral)?',
    'exame clinico(?: geral)?',
    'exame geral',
    'ao exame(?: fisico| clinico)?',
    'sinais vitais',
    'parametros(?: vitais)?',
    'achados(?: clinicos| do exame)?',
    // Bare "Exame:" is a heading only with its delimiter ("exame de sangue" is prose).
    'exame(?=\\s*[:\\-–—.])',
    'exame (?:dermatologico|oftalmico|oftalmologico|neurologico|ortopedico|cardiologico|especifico)',
  ],
  diagnosis: [
    'diagnosticos?(?: presuntivos?| definitivos?| diferenciais?| clinicos?| provavel)?',
    'suspeitas?(?: clinicas?| diagnosticas?)?',
    'hipoteses? diagnosticas?',
    'impressao diagnostica',
    // "Impressão:" and "Interpretação dos exames:" open the reading of a case; "impressão de dor" is prose.
    'impressao(?=\\s*[:\\-–—])',
    'interpretacao(?: dos exames| dos resultados)?(?=\\s*[:\\-–—])',
    'prognostico',
    'conclusao',
    // In rechecks "Avaliação:" opens the reading of the case; "avaliação ortopédica amanhã" is prose.
    'avaliacao(?=\\s*[:\\-–—.])',
  ],
  treatment: [
    'tratamento',
    'conduta',
    'prescricao',
    'plano (?:terapeutico|diagnostico)',
    'exames (?:solicitados|complementares)',
    'tratamento instituido',
    'manejo',
    'orientacoes(?: ao tutor| gerais)?',
    'recomendacoes(?: ao tutor)?',
    'procedimentos?(?: realizados?)?',
    'terapeutica',
    'receita',
    'medicacao',
    'plano',
  ],
  follow_up: ['retorno', 'reavaliacao', 'seguimento', 'acompanhamento', 'revisao'],
  observations: ['observacoes', 'observacao', 'obs', 'notas?', 'comentarios'],
};

const headingAlternation = Object.values(HEADINGS).flat().join('|');

/**
 * A heading at the start of a sentence: `delimiter` is set when the heading is followed by
 * punctuation (or stands alone), which is when it is certainly a heading and not prose
 * ("Ao exame, animal alerta" keeps its words; "Ao exame: animal alerta" loses "Ao exame:").
 */
export const HEADING_AT_START: { label: SectionLabel; pattern: RegExp; stripsOnComma: boolean }[] = Object.entries(HEADINGS).flatMap(
  ([label, phrases]) =>
    phrases.map((phrase) => ({
      label: label as SectionLabel,
      pattern: new RegExp(`^(?:${phrase})(?:\\s*([:\\-–—,.])+\\s*|\\s*$|(?=\\s))`),
      stripsOnComma: !phrase.startsWith('ao exame'),
    })),
);

/** "... sem outras queixas exame físico: temperatura ..." — a new sentence starts at the heading. */
export const DELIMITED_HEADING_ANYWHERE = new RegExp(`(\\s)(?:${headingAlternation})\\s*[:–—]`, 'g');

// Headings unlikely to be prose, and the words that show a heading word is prose after all
// ("respondeu bem ao tratamento", "o diagnóstico é").
const STRONG_HEADINGS =
  'anamnese|historico clinico|queixa principal|exame fisico|exame clinico|diagnosticos?(?: presuntivos?| definitivos?| diferenciais?)?|suspeita clinica|conduta|tratamento|prescricao|plano terapeutico|observac(?:ao|oes)|obs|prognostico|retorno|reavaliacao';
const NOT_AFTER =
  'ao|o|a|os|as|do|da|dos|das|de|no|na|nos|nas|num|numa|um|uma|pelo|pela|com|sem|para|pra|seu|sua|esse|essa|este|esta|novo|nova|mesmo|mesma|outro|outra|proprio|e|em|por|bom|boa|meu|minha|teu|nosso|nossa|qual|que|o seu|do seu';

/**
 * "... ela anda pulando exame fisico. peso dois quilos ..." — in unpunctuated dictation a strong
 * heading followed by ".", "," or nothing starts a sentence too, unless an article or preposition
 * before it shows it is prose.
 */
export const HEADING_IN_RUN = new RegExp(`(\\s)(?<!(?:^|\\s)(?:${NOT_AFTER})\\s)(?:${STRONG_HEADINGS})(?=\\s*[.,]|\\s)`, 'g');

const SPEAKER =
  '(?:medic[oa] |doutor[a]? )?veterinari[oa]|vet|tutor[a]?|proprietari[oa]|don[oa](?: [a-z]+)?|cliente|dr[a]?\\.?(?: [a-z]+)?|doutor[a]?(?: [a-z]+)?';
// Diarizing servers label speakers without roles ("A:", "speaker_1:"); such labels only count at
// the start of a line, where the transcript puts them, never mid-sentence.
const DIARIZED_SPEAKER = '[a-f]|speaker[ _]?\\d+|falante \\d+|locutor \\d+';
export const SPEAKER_LABEL_AT_START = new RegExp(`^(${SPEAKER}|${DIARIZED_SPEAKER})\\s*:\\s*`);
// Not inside a longer label: "Médica veterinária:" must not split before "veterinária".
export const SPEAKER_LABEL_ANYWHERE = new RegExp(`(\\s)(?<!(?:medic[oa]|doutor[a]?)\\s)(?:${SPEAKER})\\s*:`, 'g');
export const TUTOR_SPEAKER = /^(?:tutor|tutora|proprietari[oa]|don[oa]|cliente)\b/;
export const VET_SPEAKER = /^(?:(?:medic[oa] |doutor[a]? )?veterinari[oa]|vet|dr[a]?\b|doutor)/;
