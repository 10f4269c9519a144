// Consultations the sandbox transcriber tells, in pt-BR. Placeholders ({name}, {days}, {temp},
// {hr}, {weight}, {ret}) are filled from the audio's hash so each upload reads a little different.

export interface Scenario {
  /** How the animal is introduced: "cão sem raça definida". */
  animal: string;
  /** Third-person history, as dictated. */
  history: string[];
  /** The same history as the tutor says it in a dialogue. */
  tutorSays: string[];
  exam: string[];
  diagnosis: string[];
  treatment: string[];
  /** Completes "Retorno ..." / "Retorno: ...". */
  followUp: string;
  /** Plausible weight range for the animal. */
  weightKg: [number, number];
}

export const SCENARIOS: Scenario[] = [
  {
    animal: 'cão sem raça definida',
    history: ['Tutor relata que {name} está com vômito há {days} dias.', 'Refere diminuição do apetite e apatia.', 'Nega diarreia.'],
    tutorSays: ['Ele está vomitando faz {days} dias.', 'Quase não come e fica deitado o dia todo.'],
    exam: ['Temperatura {temp} graus, frequência cardíaca {hr} batimentos por minuto.', 'Mucosas rosadas, dor à palpação abdominal.'],
    diagnosis: ['Suspeita de gastroenterite aguda.'],
    treatment: ['Omeprazol 1 mg/kg a cada 24 horas por dez dias.', 'Dieta leve em pequenas porções.'],
    followUp: 'em {ret} dias para reavaliação.',
    weightKg: [8, 25],
  },
  {
    animal: 'cadela da raça poodle',
    history: ['Tutora relata que {name} coça muito o ouvido direito há {days} dias.', 'Já teve otite no ano passado.'],
    tutorSays: ['Ela não para de coçar a orelha, doutora, faz uns {days} dias.', 'E balança a cabeça o tempo todo.'],
    exam: ['Conduto auditivo direito com secreção acastanhada e odor forte.', 'Temperatura {temp} graus, peso {weight} kg.'],
    diagnosis: ['Quadro compatível com otite externa por Malassezia.'],
    treatment: [
      'Limpeza do ouvido com ceruminolítico duas vezes por semana.',
      'Otológico com miconazol, cinco gotas a cada 12 horas por 14 dias.',
    ],
    followUp: 'em {ret} dias.',
    weightKg: [3, 8],
  },
  {
    animal: 'gata castrada',
    history: ['Tutor relata que {name} está urinando fora da caixa há {days} dias.', 'Percebeu sangue na urina.'],
    tutorSays: ['Ela está fazendo xixi pela casa toda há {days} dias.', 'E ontem eu vi sangue no xixi.'],
    exam: ['Bexiga pequena e dolorosa à palpação.', 'Temperatura {temp} graus, mucosas normocoradas.'],
    diagnosis: ['Suspeita de cistite idiopática felina.', 'Solicito urinálise e ultrassom abdominal.'],
    treatment: ['Prescrevo meloxicam 0,05 mg/kg a cada 24 horas por quatro dias.', 'Ração úmida e mais fontes de água.'],
    followUp: 'em {ret} dias com os exames.',
    weightKg: [3, 6],
  },
  {
    animal: 'cão da raça labrador',
    history: ['Tutor relata que {name} está mancando da pata traseira esquerda há {days} dias.', 'Piora depois dos passeios.'],
    tutorSays: ['Ele começou a mancar da pata de trás faz {days} dias.', 'Depois de passear fica pior.'],
    exam: ['Dor e crepitação à palpação do joelho esquerdo.', 'Frequência cardíaca {hr} batimentos por minuto, peso {weight} kg.'],
    diagnosis: ['Suspeita de ruptura do ligamento cruzado cranial.', 'Solicito radiografia do joelho.'],
    treatment: ['Prescrevo carprofeno 2,2 mg/kg a cada 12 horas por sete dias.', 'Repouso e passeios curtos na guia.'],
    followUp: 'em {ret} dias com a radiografia.',
    weightKg: [25, 40],
  },
  {
    animal: 'gato sem raça definida',
    history: ['Tutora relata que {name} está espirrando e com secreção no olho há {days} dias.', 'Tem contato com outros gatos.'],
    tutorSays: ['Ele está espirrando muito faz {days} dias.', 'E o olho está cheio de remela.'],
    exam: ['Secreção nasal serosa e conjuntivite bilateral.', 'Temperatura {temp} graus, auscultação pulmonar sem alterações.'],
    diagnosis: ['Quadro compatível com complexo respiratório felino.'],
    treatment: ['Colírio antibiótico três vezes ao dia por sete dias.', 'Nebulização com soro fisiológico duas vezes ao dia.'],
    followUp: 'em {ret} dias.',
    weightKg: [3, 6],
  },
  {
    animal: 'cadela da raça shih tzu',
    history: ['Tutor relata que {name} está com tosse seca há {days} dias, pior à noite.', 'Cansa fácil nos passeios.'],
    tutorSays: ['Ela está tossindo muito à noite faz {days} dias.', 'E cansa rápido quando a gente sai para passear.'],
    exam: ['Sopro sistólico em foco mitral.', 'Frequência cardíaca {hr} batimentos por minuto, mucosas rosadas.'],
    diagnosis: ['Suspeita de doença valvar mitral.', 'Solicito radiografia de tórax e ecocardiograma.'],
    treatment: ['Prescrevo pimobendan 0,25 mg/kg a cada 12 horas.', 'Evitar exercícios intensos.'],
    followUp: 'em {ret} dias com o ecocardiograma.',
    weightKg: [4, 8],
  },
];
