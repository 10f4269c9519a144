#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../platform/config.ts';
import { openDatabase } from '../platform/db/client.ts';
import { runMigrations } from '../platform/db/migrate.ts';
import { createLogger } from '../platform/logger.ts';
import { type CliContext, CliError, CliFailure, commands } from './commands.ts';

// The operator CLI: each command prints exactly one JSON object on stdout; logs and
// errors go to stderr; exit code 0 on success, 1 with a one-line error otherwise.

async function main(argv: string[]): Promise<number> {
  const command = commands.find((candidate) => matches(candidate.name, argv));
  if (!command) {
    const known = commands.map((candidate) => candidate.name).join(', ');
    throw new CliError(`unknown command "${argv.join(' ')}"; known commands: ${known}`);
  }
  const { values, positionals } = parseArgs({
    args: argv.slice(command.name.split(' ').length),
    options: command.options ?? {},
    strict: true,
    allowPositionals: command.offline === true,
  });
  if (command.offline) {
    if (positionals.length !== command.positionals.length) {
      throw new CliError(`usage: ${command.name} ${command.positionals.map((name) => name.toUpperCase()).join(' ')}`);
    }
    return print(await command.run(values as Record<string, string | boolean | undefined>, positionals));
  }

  const config = loadConfig();
  const logger = createLogger({ LOG_LEVEL: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL }, process.stderr);
  const database = await openDatabase(config);
  try {
    // Every command works on a current schema, as the server would.
    await runMigrations(database);
    const context: CliContext = { config, database, logger };
    return print(await command.run(context, values as Record<string, string | boolean | undefined>));
  } finally {
    await database.close();
  }
}

function print(result: object): number {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return 0;
}

function matches(name: string, argv: string[]): boolean {
  const words = name.split(' ');
  return words.every((word, index) => argv[index] === word);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // A finding, not a fault: its answer goes to stdout as a success's would.
    if (error instanceof CliFailure) process.stdout.write(`${JSON.stringify(error.result)}\n`);
    const known = error instanceof CliError || error instanceof ConfigError || (error as Error)?.name === 'DataDirInUseError';
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${(known ? message : `unexpected failure: ${message}`).replaceAll('\n', ' ')}\n`);
    process.exit(1);
  },
);
