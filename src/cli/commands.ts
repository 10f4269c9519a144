import type { ParseArgsOptionsConfig } from 'node:util';
import { flowCommands } from '../flow/flow.cli.ts';
import type { Config } from '../platform/config.ts';
import type { Database } from '../platform/db/client.ts';
import type { Logger } from '../platform/logger.ts';

/** A failure the operator caused (a bad flag, an unknown id): printed as one line, exit 1. */
export class CliError extends Error {
  override name = 'CliError';
}

export interface CliContext {
  readonly config: Config;
  readonly database: Database;
  readonly logger: Logger;
}

export interface CliCommand {
  /** One or two words, e.g. `migrate` or `tenant create`. */
  readonly name: string;
  readonly options?: ParseArgsOptionsConfig;
  run(context: CliContext, values: Record<string, string | boolean | undefined>): Promise<object>;
}

/** Reads a required string flag or fails with a message naming it. */
export function requiredFlag(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new CliError(`--${name} is required`);
  return value.trim();
}

const migrate: CliCommand = {
  name: 'migrate',
  // The database is migrated before any command runs; this one only reports it.
  run: async () => ({ migrated: true }),
};

export const commands: readonly CliCommand[] = [migrate, ...flowCommands];
