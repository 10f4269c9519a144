// What the `openai` sectioner asks of the model: the instructions (pt-BR, since the transcripts
// are) and the JSON schema its answer must follow.

import { SECTION_LABELS } from './port.ts';

export const SYSTEM_PROMPT = `Você organiza transcrições de consultas veterinárias (pt-BR) nas seções de um prontuário.
Seções (use exatamente estes rótulos):
- anamnesis: queixa principal, histórico, relato do tutor, vacinação, alimentação, medicações anteriores, perguntas do veterinário sobre o histórico;
- physical_exam: parâmetros e achados do exame físico (temperatura, frequências, mucosas, palpação, auscultação, peso, lesões);
- diagnosis: suspeitas, diagnósticos diferenciais, exames solicitados e seus resultados;
- treatment: prescrições, doses, procedimentos, dieta e cuidados em casa;
- follow_up: retorno, reavaliação, quando voltar ou ligar;
- observations: o que não cabe nas outras (cumprimentos, autorizações, comportamento do animal, observações gerais).
Regras:
1. Copie cada frase da transcrição literalmente para exatamente uma seção, na ordem original. Não resuma, não corrija, não traduza, não invente e não repita frases.
2. Retire apenas os títulos falados ("Anamnese:", "Exame físico:", "Conduta:" etc.); o restante da frase fica.
3. Em diálogos, mantenha o nome de quem fala ("Tutor:", "Vet:") no início da frase; as queixas do tutor vão para anamnesis.
4. Omita seções vazias. Responda somente com JSON no formato {"sections":[{"label":"...","content":"..."}]}.`;

export const SECTIONS_JSON_SCHEMA = {
  name: 'note_sections',
  strict: true,
  schema: {
    type: 'object',
    properties: {
      sections: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            label: { type: 'string', enum: [...SECTION_LABELS] },
            content: { type: 'string' },
          },
          required: ['label', 'content'],
          additionalProperties: false,
        },
      },
    },
    required: ['sections'],
    additionalProperties: false,
  },
} as const;
