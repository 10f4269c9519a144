// What the `openai` sectioner asks of the model: the instructions (pt-BR, since the transcripts
// are) and the JSON schema its answer must follow.

import { SECTION_LABELS } from './port.ts';

export const SYSTEM_PROMPT = `Você organiza transcrições de consultas veterinárias (pt-BR) nas seções de um prontuário.
Seções (use exatamente estes rótulos; se uma frase couber em duas, vale a primeira regra que se aplica, nesta ordem):
- anamnesis: identificação do paciente (espécie, raça, idade, sexo, peso informado pelo tutor), queixa principal e tudo o que o tutor relata do passado (início, duração, apetite, água, urina, fezes, vômito, vacinas, vermifugação, dieta, doenças e medicações anteriores, ambiente, contato com outros animais); as perguntas do veterinário sobre o histórico e as respostas do tutor;
- physical_exam: o que é medido ou visto nesta consulta (peso na balança, temperatura, frequências, mucosas, TPC, hidratação, linfonodos, palpação, auscultação, escore corporal, lesões, dor à manipulação, marcha, comportamento durante o exame) e testes rápidos lidos na hora (Schirmer, fluoresceína, CMT, glicemia de fita, snap test);
- diagnosis: conclusões: diagnóstico (presuntivo), suspeitas, diferenciais, prognóstico e a interpretação de resultados, também quando a frase cita um resultado de exame;
- treatment: o plano e o que se faz agora: prescrições com dose, via, frequência e duração, procedimentos feitos ou agendados, fluidoterapia, curativos, vacina aplicada, dieta e cuidados em casa, restrições, e os exames solicitados ou amostras coletadas agora ("solicito raio-x", "coletei sangue para hemograma");
- observations: o que não é conteúdo clínico: preocupações e sentimentos do tutor, consentimento e autorizações, custos, pagamento, orçamentos, logística (quem traz o animal, transporte, horários), cumprimentos e conversa social, comentários sobre o temperamento do animal que não são achados;
- follow_up: quando voltar ou ligar: datas de retorno, reavaliações agendadas, sinais de alerta que devem fazer o tutor voltar ou ligar ("se voltar a vomitar, traga antes").
Regras:
1. Copie cada frase da transcrição literalmente para exatamente uma seção, na ordem original. Não resuma, não corrija, não traduza, não invente e não repita frases.
2. Um título falado ("Anamnese:", "Exame clínico.", "Conduta -", "Plano terapêutico:", "Suspeita:", "Retorno:") vale para as frases seguintes até o próximo título; sob "Conduta" ou "Plano" tudo é treatment. Exceção: retorno, reavaliação ou próxima visita agendada é sempre follow_up, onde quer que seja dito. Retire apenas o título; o restante da frase fica.
3. Conversas não trazem quem fala: deduza pelo conteúdo. Se houver rótulos de quem fala ("Tutor:", "Vet:", "A:"), mantenha-os no início da frase.
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
