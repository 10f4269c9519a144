import { describe, expect, it } from 'vitest';
import { numberKey, quantityAt } from '../../src/language/numbers.ts';
import { tokenize } from '../../src/language/tokens.ts';
import { ungroundedTokens } from '../../src/providers/drafting/grounding/check.ts';
import { claimsOf, whatWasSaid } from '../../src/providers/drafting/grounding/claims.ts';
import { frequenciesIn } from '../../src/providers/drafting/grounding/frequencies.ts';

/** The readings of the number phrase that starts the text. */
function readings(text: string): number[] {
  return quantityAt(tokenize(text), 0)?.values ?? [];
}

describe('pt-BR number phrases', () => {
  it.each([
    ['meio comprimido', 0.5],
    ['meia hora', 0.5],
    ['½ comprimido', 0.5],
    ['um e meio', 1.5],
    ['uma e meia', 1.5],
    ['trinta e nove e quatro', 39.4],
    ['trinta e nove vírgula quatro', 39.4],
    ['trinta e oito ponto cinco', 38.5],
    ['zero vírgula vinte e cinco', 0.25],
    ['zero vírgula zero cinco', 0.05],
    ['vinte e cinco centésimos', 0.25],
    ['cinco décimos', 0.5],
    ['um quarto', 0.25],
    ['três quartos', 0.75],
    ['um terço', 1 / 3],
    ['cento e quarenta', 140],
    ['cento e quarenta e dois', 142],
    ['cem', 100],
    ['duzentos e cinquenta', 250],
    ['mil e duzentos', 1200],
    ['dois mil e quinhentos', 2500],
    ['mil duzentos e trinta', 1230],
    ['doze', 12],
    ['dezesseis', 16],
    ['catorze', 14],
    ['quatorze', 14],
    ['duas', 2],
    ['39,4', 39.4],
    ['39.4', 39.4],
    ['0,25', 0.25],
    ['1.000', 1000],
    ['1.000,5', 1000.5],
    ['1/2', 0.5],
    ['10', 10],
  ])('%s → %d', (phrase, value) => {
    expect(readings(phrase).map(numberKey)).toContain(numberKey(value));
  });

  it.each([
    // Several readings: a spoken temperature is 39,4 but may be two numbers.
    ['trinta e nove e quatro', [39.4, 39, 4]],
    ['1.000', [1000, 1]],
    ['1/2', [0.5, 1, 2]],
    ['12/12', [12]],
  ])('%s has the readings %j', (phrase, values) => {
    expect(readings(phrase)).toEqual(values);
  });

  it.each(['por meio de', 'no meio', 'uma lesão', 'vacina'])('"%s" is not a number a draft must ground', (text) => {
    expect(claimsOf(text).filter((claim) => claim.kind === 'number')).toEqual([]);
  });

  it('"um"/"uma" count as one before a unit', () => {
    expect(claimsOf('uma semana')).toEqual([
      { kind: 'number', keys: ['1'], token: 'uma' },
      { kind: 'unit', keys: ['semana'], token: 'semana' },
    ]);
  });
});

describe('frequencies', () => {
  it.each([
    ['de doze em doze horas', 'a cada 12 h'],
    ['de 12 em 12 horas', 'a cada 12 h'],
    ['de oito em oito', 'a cada 8 h'],
    ['a cada 12 h', 'a cada 12 h'],
    ['a cada doze horas', 'a cada 12 h'],
    ['12/12 h', 'a cada 12 h'],
    ['12/12h', 'a cada 12 h'],
    ['q12h', 'a cada 12 h'],
    ['BID', 'a cada 12 h'],
    ['SID', 'a cada 24 h'],
    ['TID', 'a cada 8 h'],
    ['duas vezes ao dia', 'a cada 12 h'],
    ['2x ao dia', 'a cada 12 h'],
    ['uma vez por dia', 'a cada 24 h'],
    ['três vezes ao dia', 'a cada 8 h'],
    ['a cada dois dias', 'a cada 48 h'],
    ['de meia em meia hora', 'a cada 0,5 h'],
  ])('%s = %s', (phrase, canonical) => {
    expect(frequenciesIn(tokenize(phrase)).map((frequency) => frequency.canonical)).toEqual([canonical]);
  });
});

describe('the grounding check', () => {
  // [drafted sentence, cited transcript text, tokens that must be flagged]
  it.each([
    // The equivalences, said in words and written in digits: nothing flagged.
    ['0,5 comprimido a cada 12 h.', 'dar meio comprimido de doze em doze horas', []],
    ['T 39,4 °C.', 'a temperatura tá trinta e nove e quatro', []],
    ['Temperatura de 39,4 graus.', 'trinta e nove vírgula quatro de temperatura', []],
    ['Dipirona 0,25 mg/kg.', 'dipirona vinte e cinco centésimos de miligrama por quilo', []],
    ['Omeprazol 1 mg/kg a cada 24 h por 7 dias.', 'omeprazol um miligrama por quilo uma vez ao dia durante sete dias', []],
    ['Meloxicam 0,1 mg/kg SID por 5 dias.', 'meloxicam zero vírgula um miligrama por quilo, uma vez por dia, cinco dias', []],
    ['Peso 12,5 kg.', 'ele tá pesando doze quilos e meio', []],
    ['FC 120 bpm.', 'frequência cardíaca cento e vinte', []],
    ['Claudicação do membro pélvico esquerdo.', 'tá mancando da perna de trás esquerda', []],
    ['Amoxicilina com clavulanato 20 mg/kg BID.', 'amoxicilina com clavulanato, vinte miligramas por quilo, duas vezes ao dia', []],
    ['Enrofloxacino 5 mg/kg.', 'enrofloxacina cinco mg por kg', []],
    ['Paciente com uma lesão no flanco.', 'tem uma feridinha aqui do lado', []],
    ['Retorno em 10 dias.', 'volta daqui a dez dias', []],
    ['Paciente de 2 anos, 6 kg.', 'ela tem dois aninhos e pesa seis quilinhos', []],
    ['FC 120 bpm; T 38,5 °C.', 'Temperatura 38,5 graus, frequência cardíaca 120 batimentos por minuto.', []],
    ['Carprofeno 2,2 mg/kg q12h por 7 dias.', 'Prescrevo carprofeno 2,2 mg/kg a cada 12 horas por sete dias.', []],
    ['Desidratação de 5 %.', 'uns cinco por cento desidratado', []],
    // Invented or changed: flagged, naming what the sentence wrote.
    ['Dipirona 25 mg/kg.', 'dipirona vinte e cinco centésimos de miligrama por quilo', ['25']],
    ['Meloxicam 0,2 mg/kg.', 'meloxicam zero vírgula um miligrama por quilo', ['0,2']],
    ['Omeprazol 1 mg/kg a cada 12 h.', 'omeprazol um miligrama por quilo uma vez ao dia', ['a cada 12 h']],
    ['Prescrito amoxicilina 20 mg/kg.', 'vamos dar o antibiótico vinte miligramas por quilo', ['amoxicilina']],
    ['Prescrito tramadol.', 'vou passar dipirona para dor', ['tramadol']],
    ['Claudicação do membro pélvico direito.', 'tá mancando da perna de trás esquerda', ['direito']],
    ['Otite no ouvido esquerdo.', 'o ouvido direito tá vermelho', ['esquerdo']],
    ['Retorno em 7 dias.', 'volta daqui a uma semana', ['7', 'dias']],
    ['Prednisolona 1 mg/kg por 5 dias.', 'prednisolona um miligrama por quilo', ['5', 'dias']],
    ['Meio comprimido de 10 mg.', 'meio comprimido', ['10', 'mg']],
    ['Solução a 2 %.', 'a solução a dois', ['%']],
  ])('"%s" against "%s" flags %j', (sentence, cited, flagged) => {
    expect(ungroundedTokens(sentence, cited)).toEqual(flagged);
  });

  it('reads what was said generously: every reading of every number, units implied by the measure', () => {
    const said = whatWasSaid('temperatura trinta e nove e quatro, frequência cardíaca cento e quarenta');
    expect([...said.number]).toEqual(expect.arrayContaining(['39.4', '39', '4', '140']));
    expect([...said.unit]).toEqual(expect.arrayContaining(['celsius', 'bpm']));
  });
});
