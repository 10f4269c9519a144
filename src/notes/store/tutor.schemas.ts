import { z } from 'zod';
import { normalizePhone } from '../../platform/phone.ts';

// The animal's tutor, as an upload or a live body names them: whom the owner summary greets and is
// sent to (docs/notes-owner-summary.md). Personal data, stored with the note and erased with it.

/** A phone as the CRM stores it: E.164 after parsing with default region BR (src/platform/phone.ts). */
export const TutorPhoneSchema = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .transform((text, context) => {
    const phone = normalizePhone(text);
    if (!phone) {
      context.addIssue({ code: 'custom', message: 'not a valid phone number' });
      return z.NEVER;
    }
    return phone;
  })
  .meta({ description: 'Any common writing of the number ("(31) 98888-1111", "+55 31 98888 1111"); Brazil when no country code' });

export const TutorSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200).nullish(),
    phone: TutorPhoneSchema.nullish(),
    external_id: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .nullish()
      .meta({ description: "The tutor's id in the ERP (the CRM contact's `external_id`)" }),
  })
  .meta({
    id: 'NoteTutor',
    description:
      "The animal's tutor, all fields optional: the owner summary greets them by first name and is sent to the CRM " +
      'contact with this external id, else this phone (created with the name and phone when missing). An invalid phone → 422.',
  });

export type TutorInput = z.infer<typeof TutorSchema>;
