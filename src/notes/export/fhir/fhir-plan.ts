import type { CoveredPlan, CoveredPlanItem } from '../../chain/covered-state.ts';
import { SYSTEMS } from './fhir-codes.ts';
import { type FhirResource, resourceUuid, urnOf } from './fhir-resource.ts';

// The plan as FHIR resources: a MedicationRequest per drug prescribed or suspended, a
// MedicationAdministration per drug given in the clinic, a ServiceRequest per exam, an Immunization
// per vaccine given and an ImmunizationRecommendation per vaccine scheduled. Drugs, exams and
// vaccines are text-coded (vetflow's own code beside the words): no national drug or vaccine
// terminology is wired yet.

export interface PlanContext {
  noteId: string;
  patient: string;
  encounter: string;
  /** The signer, when the note is signed: the requester and performer. */
  practitioner: string | null;
  /** When the consultation happened (FHIR dateTime). */
  at: string;
}

const text = (item: CoveredPlanItem, key: string) => (typeof item[key] === 'string' ? (item[key] as string) : null);
const number = (item: CoveredPlanItem, key: string) => (typeof item[key] === 'number' ? (item[key] as number) : null);

function dosage(item: CoveredPlanItem) {
  const value = number(item, 'dose_value');
  const unit = text(item, 'dose_unit');
  const route = text(item, 'route');
  const interval = number(item, 'interval_hours');
  const days = number(item, 'duration_days');
  return {
    text: text(item, 'text') ?? '',
    ...(route ? { route: { text: route } } : {}),
    ...(value !== null ? { dose: { value, ...(unit ? { unit } : {}) } } : {}),
    ...(interval !== null || days !== null
      ? {
          timing: {
            repeat: {
              ...(days !== null ? { boundsDuration: { value: days, unit: 'd', system: SYSTEMS.ucum, code: 'd' } } : {}),
              ...(interval !== null ? { frequency: 1, period: interval, periodUnit: 'h' } : {}),
            },
          },
        }
      : {}),
  };
}

const concept = (system: string, code: string | null, words: string | null) => ({
  ...(code ? { coding: [{ system, code }] } : {}),
  text: words ?? code ?? '',
});

function medication(item: CoveredPlanItem, index: number, context: PlanContext): FhirResource & { id: string } {
  const drug = { text: text(item, 'drug') ?? text(item, 'text') ?? '' };
  const subject = { reference: urnOf(context.patient) };
  const encounter = { reference: urnOf(context.encounter) };
  const { dose, ...instruction } = dosage(item);
  if (item.status === 'administered') {
    return {
      resourceType: 'MedicationAdministration',
      id: resourceUuid(context.noteId, `medication-${index}`),
      status: 'completed',
      medicationCodeableConcept: drug,
      subject,
      context: encounter,
      effectiveDateTime: context.at,
      ...(context.practitioner ? { performer: [{ actor: { reference: urnOf(context.practitioner) } }] } : {}),
      dosage: { text: instruction.text, ...(instruction.route ? { route: instruction.route } : {}), ...(dose ? { dose } : {}) },
    };
  }
  return {
    resourceType: 'MedicationRequest',
    id: resourceUuid(context.noteId, `medication-${index}`),
    // Suspended in this visit: the order is stopped.
    status: item.status === 'suspended' ? 'stopped' : 'active',
    intent: 'order',
    medicationCodeableConcept: drug,
    subject,
    encounter,
    authoredOn: context.at,
    ...(context.practitioner ? { requester: { reference: urnOf(context.practitioner) } } : {}),
    dosageInstruction: [{ ...instruction, ...(dose ? { doseAndRate: [{ doseQuantity: dose }] } : {}) }],
  };
}

/** Every resource of the plan, in the plan's order; none for a note without a plan. */
export function planResources(plan: CoveredPlan | null, context: PlanContext): (FhirResource & { id: string })[] {
  if (!plan) return [];
  const subject = { reference: urnOf(context.patient) };
  const encounter = { reference: urnOf(context.encounter) };
  const exams = plan.exams.map((item, index) => ({
    resourceType: 'ServiceRequest',
    id: resourceUuid(context.noteId, `exam-${index}`),
    status: 'active',
    intent: 'order',
    code: concept(SYSTEMS.exam, text(item, 'code'), text(item, 'text')),
    subject,
    encounter,
    authoredOn: context.at,
    ...(context.practitioner ? { requester: { reference: urnOf(context.practitioner) } } : {}),
  }));
  const vaccines = plan.vaccines.map((item, index) => {
    const vaccineCode = concept(SYSTEMS.vaccine, text(item, 'code'), text(item, 'text'));
    const id = resourceUuid(context.noteId, `vaccine-${index}`);
    if (item.status === 'administered') {
      return {
        resourceType: 'Immunization',
        id,
        status: 'completed',
        vaccineCode,
        patient: subject,
        encounter,
        occurrenceDateTime: context.at,
        ...(context.practitioner ? { performer: [{ actor: { reference: urnOf(context.practitioner) } }] } : {}),
      };
    }
    return {
      resourceType: 'ImmunizationRecommendation',
      id,
      patient: subject,
      date: context.at,
      recommendation: [{ vaccineCode: [vaccineCode], forecastStatus: { text: 'agendada' } }],
    };
  });
  return [...plan.medications.map((item, index) => medication(item, index, context)), ...exams, ...vaccines];
}
