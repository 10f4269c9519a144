import type { Config } from '../../platform/config.ts';
import type { FairShares } from '../../platform/fair-shares.ts';
import type { SendJobOptions } from '../../platform/jobs.ts';

/**
 * The send options that put a note's job in its clinic's share of the workers (docs/notes-processing.md,
 * "Scheduling"): the clinic's turn among the clinics with work waiting, and its cap on jobs in flight.
 * `live`: a live capture's work, which the vet is waiting for, goes ahead of the clinic's uploads.
 */
export function clinicShare(clinicId: string, live = false): Pick<SendJobOptions, 'group' | 'ahead'> {
  return { group: { id: clinicId }, ahead: live };
}

/** The shares of the note queues: clinics in turn, each capped at PROCESSING_MAX_PER_CLINIC; null with PROCESSING_ORDER=fifo. */
export function clinicShares(config: Pick<Config, 'PROCESSING_ORDER' | 'PROCESSING_MAX_PER_CLINIC'>): FairShares | null {
  return config.PROCESSING_ORDER === 'fair' ? { maxPerGroup: config.PROCESSING_MAX_PER_CLINIC } : null;
}
