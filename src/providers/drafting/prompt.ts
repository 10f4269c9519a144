// What the drafter asks of the model: the instructions (pt-BR, like the notes) for the note's
// sections — each with the base sections of the labelling conventions it gathers and the clinic's
// own instructions — and the JSON schema of the answer
// {"sections":[{"label","sentences":[{"text","segments":[n]}]}]}, whose labels are the sections'.

import type { SectionLabel } from '../sectioning/port.ts';
import type { PreviousVisit, TemplateSection } from './port.ts';

/** What each base section holds (NOTE-SECTIONS conventions), as the model is told. */
const BASE_DESCRIPTIONS: Record<SectionLabel, string> = {
  anamnesis:
    'identificação do paciente (espécie, raça, idade, sexo, peso relatado), queixa principal e tudo o que o tutor relata sobre o passado (início, duração, apetite, água, urina/fezes, vômitos, vacinas, vermifugação, dieta, doenças e medicações anteriores, ambiente)',
  physical_exam:
    'o que é medido ou visto nesta consulta (peso na balança, temperatura, frequências cardíaca e respiratória, mucosas, TPC, hidratação, linfonodos, palpação, auscultação, escore corporal, lesões, dor, marcha) e testes rápidos lidos na hora',
  diagnosis: 'diagnóstico (presuntivo), suspeitas, diferenciais, prognóstico e interpretação de resultados',
  treatment:
    'o plano e o que é feito agora: prescrições com dose, via, frequência e duração, procedimentos, dieta, cuidados em casa, restrições, exames solicitados e amostras colhidas',
  observations: 'o que não é conteúdo clínico (preocupações do tutor, autorizações, custos, logística, temperamento do animal)',
  follow_up: 'retorno, reavaliações e sinais de alerta para voltar ou ligar antes',
};

/** One line per section: its label, its title, what it gathers, then the clinic's instructions. */
function sectionLines(section: TemplateSection): string {
  const gathers =
    section.includes.length > 0
      ? section.includes.map((label) => BASE_DESCRIPTIONS[label]).join('; ')
      : 'nenhum conteúdo é posto aqui por padrão: escreva somente o que as instruções da clínica pedem';
  const instructions = section.instructions
    ? `\n  Instruções da clínica para esta seção: ${section.instructions.replace(/\s+/g, ' ')}`
    : '';
  return `- ${section.label} ("${section.title}"): ${gathers}.${instructions}`;
}

export function systemPrompt(sections: readonly TemplateSection[]): string {
  return `Você é um assistente que redige o prontuário de uma consulta veterinária (pt-BR) a partir da transcrição.
A transcrição vem em linhas numeradas "[n] texto", em ordem de tempo, sem indicação de quem fala.

Escreva frases clínicas concisas, no registro de um prontuário (ex.: "Tutor relata vômitos há 2 dias.", "T 39,4 °C.", "Prescrito omeprazol 1 mg/kg a cada 24 h por 7 dias."), nas seções (rótulo, título e o que cada uma reúne):
${sections.map(sectionLines).join('\n')}

Regras:
1. Use somente o que foi dito. Não invente nem complete dose, via, frequência, duração, medicamento, lado do corpo (direito/esquerdo), achado, diagnóstico ou tratamento que não esteja na transcrição. Na dúvida, omita.
2. Mantenha exatamente os números, unidades e nomes de medicamentos ditos; pode escrevê-los com algarismos ("trinta e nove e quatro" → "39,4"; "de doze em doze horas" → "a cada 12 h"; "meio comprimido" → "0,5 comprimido").
3. Para cada frase, liste em "segments" os números [n] das linhas da transcrição que a sustentam (pelo menos um; só números que existem).
4. Siga as instruções da clínica de cada seção (o que escrever, tom, nível de detalhe), sem nunca contrariar as regras 1 a 3.
5. Omita seções vazias e não repita informação entre seções.
6. Responda somente com JSON no formato {"sections":[{"label":"<rótulo>","sentences":[{"text":"...","segments":[1,2]}]}]}, com os rótulos exatamente como acima.
7. Quando vier um bloco "CONSULTA ANTERIOR", ele é só contexto do que foi registrado na última visita assinada: nada dele foi dito hoje. Não copie dele números, doses, diagnósticos ou tratamentos; escreva somente o que a transcrição de hoje diz (ex.: se hoje foi dito "mantém a mesma dose", escreva isso, sem a dose).`;
}

/**
 * The last signed visit, before today's transcript in the user message, fenced and marked as
 * previous (rule 7): it has no line numbers, so no sentence can cite it.
 */
export function previousVisitBlock(previous: PreviousVisit): string {
  const lines = [
    `CONSULTA ANTERIOR (${previous.visitDate ?? 'data não registrada'}; contexto, não foi dito hoje):`,
    `Diagnóstico: ${previous.diagnosis?.replace(/\s+/g, ' ').trim() || 'não registrado'}`,
    `Plano: ${previous.plan.length > 0 ? previous.plan.join('; ') : 'nenhum item registrado'}`,
    'FIM DA CONSULTA ANTERIOR',
    '',
    'TRANSCRIÇÃO DE HOJE:',
  ];
  return lines.join('\n');
}

/** The strict JSON schema of the answer: the labels are the sections' own. */
export function draftJsonSchema(sections: readonly TemplateSection[]) {
  return {
    name: 'clinical_note',
    strict: true,
    schema: {
      type: 'object',
      properties: {
        sections: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              label: { type: 'string', enum: sections.map((section) => section.label) },
              sentences: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    text: { type: 'string' },
                    segments: { type: 'array', items: { type: 'integer' } },
                  },
                  required: ['text', 'segments'],
                  additionalProperties: false,
                },
              },
            },
            required: ['label', 'sentences'],
            additionalProperties: false,
          },
        },
      },
      required: ['sections'],
      additionalProperties: false,
    },
  };
}

/** The system prompt of a plain-language rewrite (the owner summary): facts kept exactly, JSON out. */
export function rewritePrompt(instructions: string): string {
  return [
    'Você reescreve, em português do Brasil, mensagens de uma clínica veterinária para o tutor do animal, em palavras simples.',
    'Mantenha exatamente cada número, dose, unidade, frequência, duração, medicamento, lado do corpo e data; não acrescente nenhum.',
    instructions,
    'Responda somente com JSON: {"text": "<a mensagem reescrita>"}.',
  ].join('\n');
}
