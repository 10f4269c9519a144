import type { ParseArgsOptionsConfig } from 'node:util';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Logger } from './logger.ts';

// The operator CLI's contract for feature commands: src/cli/ lists them and runs them.

/** A failure the operator caused (a bad flag, an unknown id): printed as one line, exit 1. */
export class CliError extends Error {
  override name = 'CliError';
}

/**
 * A command that ran and found what the operator asked about to be wrong (a record that does not
 * verify): its answer is printed on stdout like any other, and the process exits 1.
 */
export class CliFailure extends CliError {
  override name = 'CliFailure';
  readonly result: object;
  constructor(message: string, result: object) {
    super(message);
    this.result = result;
  }
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
  readonly offline?: false;
  run(context: CliContext, values: Record<string, string | boolean | undefined>): Promise<object>;
}

/**
 * A command that needs neither the configuration nor the database (`record verify FILE` checks a
 * file anywhere, on a machine that has no vetflow installation): it takes positional arguments.
 */
export interface OfflineCliCommand {
  readonly name: string;
  readonly options?: ParseArgsOptionsConfig;
  readonly offline: true;
  /** The positional arguments it takes, by name, for the usage message. */
  readonly positionals: readonly string[];
  run(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<object>;
}

/** Any command the CLI runs. */
export type AnyCliCommand = CliCommand | OfflineCliCommand;

/** Reads a required string flag or fails with a message naming it. */
export function requiredFlag(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new CliError(`--${name} is required`);
  return value.trim();
}
