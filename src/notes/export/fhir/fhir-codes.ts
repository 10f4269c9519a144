// The codes the FHIR export writes (docs/notes-export.md, "FHIR R4"): where a standard code exists
// it is written with its system, the note's own code travels beside it under vetflow's system so a
// reader gets the exact value back, and anything without a standard code is text-coded.

/** Systems and extensions of our own: URNs, as vetflow has no public canonical URL to host definitions at. */
export const VETFLOW = 'urn:vetflow:fhir';
export const SYSTEMS = {
  species: `${VETFLOW}:species`,
  sectionLabel: `${VETFLOW}:section-label`,
  vital: `${VETFLOW}:vital`,
  exam: `${VETFLOW}:exam`,
  vaccine: `${VETFLOW}:vaccine`,
  crmv: `${VETFLOW}:crmv`,
  patientExternalId: `${VETFLOW}:patient-external-id`,
  snomed: 'http://snomed.info/sct',
  loinc: 'http://loinc.org',
  ucum: 'http://unitsofmeasure.org',
  uri: 'urn:ietf:rfc:3986',
} as const;

export const EXTENSIONS = {
  patientAnimal: 'http://hl7.org/fhir/StructureDefinition/patient-animal',
  sectionOrder: `${VETFLOW}:extension:section-order`,
  linkPosition: `${VETFLOW}:extension:link-position`,
  hashVersion: `${VETFLOW}:extension:hash-version`,
  contentSha256: `${VETFLOW}:extension:content-sha256`,
  previousSha256: `${VETFLOW}:extension:previous-sha256`,
} as const;

/**
 * SNOMED CT organism codes of the species vetflow knows, at species level; avian and other are
 * text-coded. Checked against published code tables: rabbit is 36571002 (447482001 is the genus
 * Mus), horse the species Equus caballus 35354009 (HL7's animal-species value set lists the genus
 * Equus, 388445009).
 */
export const SPECIES_SNOMED: Record<string, { code: string; display: string } | undefined> = {
  canine: { code: '448771007', display: 'Canis lupus subsp. familiaris (organism)' },
  feline: { code: '448169003', display: 'Felis catus (organism)' },
  equine: { code: '35354009', display: 'Equus caballus (organism)' },
  bovine: { code: '34618005', display: 'Bos taurus (organism)' },
  caprine: { code: '125097000', display: 'Capra hircus (organism)' },
  ovine: { code: '125099002', display: 'Ovis aries (organism)' },
  lagomorph: { code: '36571002', display: 'Oryctolagus cuniculus (organism)' },
};

/** The vital-signs profile's LOINC codes and UCUM units where one exists; the rest are text-coded. */
export const VITAL_CODES: Record<string, { loinc?: { code: string; display: string }; ucum?: string; text: string }> = {
  temperature: { loinc: { code: '8310-5', display: 'Body temperature' }, ucum: 'Cel', text: 'Temperatura' },
  weight: { loinc: { code: '29463-7', display: 'Body weight' }, ucum: 'kg', text: 'Peso' },
  heart_rate: { loinc: { code: '8867-4', display: 'Heart rate' }, ucum: '/min', text: 'Frequência cardíaca' },
  respiratory_rate: { loinc: { code: '9279-1', display: 'Respiratory rate' }, ucum: '/min', text: 'Frequência respiratória' },
  capillary_refill_time: { ucum: 's', text: 'Tempo de preenchimento capilar' },
  body_condition_score: { text: 'Escore de condição corporal' },
  dehydration: { ucum: '%', text: 'Desidratação' },
  mucous_membranes: { text: 'Mucosas' },
};

/** The note's vital flags as the v3 observation interpretation codes. */
export const INTERPRETATIONS: Record<string, { code: string; display: string }> = {
  low: { code: 'L', display: 'Low' },
  high: { code: 'H', display: 'High' },
  abnormal: { code: 'A', display: 'Abnormal' },
};

export const GENDERS = { male: 'male', female: 'female', unidentified: 'unknown' } as const;
