import { z } from 'zod';

/** A stretch of the note's audio: where words behind a section, a vital or a plan item were said. */
export const TimeRangeSchema = z
  .object({ start: z.number().meta({ description: 'Seconds from the start of the audio' }), end: z.number() })
  .meta({ id: 'TimeRange' });
