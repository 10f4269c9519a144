import { flowCommands } from '../flow/flow.cli.ts';
import { notesCommands, notesOfflineCommands } from '../notes/notes.cli.ts';
import type { AnyCliCommand, CliCommand } from '../platform/cli.ts';
import { retentionRun } from './retention.cli.ts';

export { type CliCommand, type CliContext, CliError, CliFailure, requiredFlag } from '../platform/cli.ts';

const migrate: CliCommand = {
  name: 'migrate',
  // The database is migrated before any command runs; this one only reports it.
  run: async () => ({ migrated: true }),
};

/** Every operator command, matched by its leading words. */
export const commands: readonly AnyCliCommand[] = [migrate, ...notesCommands, ...notesOfflineCommands, ...flowCommands, retentionRun];
