// Drug names recognised by the endings of their classes (-cilina, -floxacino, -prazol, ...), for
// names no list holds: one rule for the drafting grounding (a drafted drug must have been said) and
// the plan extraction (an unlisted drug said with a dose is still a drug). Words are folded.

const DRUG_ENDINGS =
  /(cilina|micina|ciclina|floxacin[oa]?|prazol|dazol|conazol|pril|metasona|solona|nisona|xicam|profeno|coxibe?|mectina|tidina|setrona|semida|azepam|azolam|olol|dipino|dipina|barbital|tiazida|triptilina|fenicol|sartana?)$/;

/** Does the word end like a drug of a known class ("ceftazidima" does not; "marbofloxacina" does)? */
export function hasDrugEnding(word: string): boolean {
  return word.length >= 6 && DRUG_ENDINGS.test(word);
}
