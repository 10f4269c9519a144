// Words a drafted sentence may not bring in on its own: drug names and the side of the body.
// Drugs are recognised by a list of those common in small- and large-animal practice in Brazil
// and by the endings of drug classes (-cilina, -floxacino, -prazol, ...); a name the list misses
// and no ending catches is not checked, which is why the prompt also forbids new drugs.

import { hasDrugEnding } from '../../../language/drug-endings.ts';

const DRUGS = new Set(
  `acepromazina afoxolaner albendazol alopurinol amicacina amiodarona amitriptilina amlodipina amoxicilina
  ampicilina apoquel atenolol atropina azitromicina benazepril betametasona bravecto buprenorfina butorfanol
  cabergolina carprofeno cefalexina cefalotina cefovecina ceftiofur ceftriaxona cetamina cetirizina
  cetoconazol cetoprofeno ciclosporina cimetidina ciprofloxacino cisaprida clavulanato clindamicina
  clomipramina clopidogrel cloranfenicol clorexidina codeina convenia dexametasona diazepam difenidramina
  digoxina diltiazem dipirona dobutamina domperidona doxiciclina enalapril enrofloxacina enrofloxacino
  espironolactona fenbendazol fenobarbital fentanil filgrastim firocoxibe florfenicol fluconazol
  flunixin flunixina fluoxetina fluralaner furosemida gabapentina gentamicina glicopirrolato heparina
  hidroclorotiazida hidrocortisona hidroxizina imidocarb insulina isoflurano itraconazol ivermectina
  lactulose levetiracetam levotiroxina lidocaina loratadina marbofloxacino maropitant maropitanto
  meloxicam metadona metimazol metilprednisolona metoclopramida metronidazol midazolam milbemicina
  mirtazapina morfina moxidectina nexgard nitenpiram ocitocina oclacitinib oclacitinibe omeprazol
  ondansetrona oxitetraciclina pantoprazol penicilina pimobendan pimobendana piroxicam praziquantel
  prednisolona prednisona propofol propranolol ranitidina revolution robenacoxibe sarolaner selamectina
  silimarina simparic sucralfato sulfadiazina sulfametoxazol telmisartana terbinafina tilosina
  tobramicina toceranib tramadol trazodona trimetoprima trimetoprim ursodiol xilazina`
    .split(/\s+/)
    .filter(Boolean),
);

export function isDrug(word: string): boolean {
  return word.length >= 5 && (DRUGS.has(word) || hasDrugEnding(word));
}

/** "enrofloxacino" and "enrofloxacina", "comprimidos" and "comprimido", compare equal. */
export function stem(word: string): string {
  return word.length > 4 ? word.replace(/(as|os|es|a|o|e|s)$/, '') : word;
}

export type Side = 'direito' | 'esquerdo' | 'bilateral';

// biome-ignore format: a table reads better packed
const SIDES: Record<string, Side> = {
  direito: 'direito', direita: 'direito', direitos: 'direito', direitas: 'direito', dir: 'direito',
  esquerdo: 'esquerdo', esquerda: 'esquerdo', esquerdos: 'esquerdo', esquerdas: 'esquerdo', esq: 'esquerdo',
  bilateral: 'bilateral', bilaterais: 'bilateral', bilateralmente: 'bilateral',
  // membro pélvico/torácico direito/esquerdo
  mpd: 'direito', mtd: 'direito', mpe: 'esquerdo', mte: 'esquerdo',
};

export function sideOf(word: string): Side | null {
  return SIDES[word] ?? null;
}
