import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from './logger.ts';

/** One API's first-run secrets, as label/value lines under its title. */
export interface CredentialBlock {
  title: string;
  fields: { label: string; value: string }[];
}

/** Where the credentials go when stdout is not a terminal (a pipe or file a log collector may read). */
export const CREDENTIALS_FILE = 'first-run-credentials.txt';

/** The one format both APIs' first-run secrets are shown in, on the terminal or in the file. */
export function formatCredentials(blocks: CredentialBlock[], docsUrl: string): string {
  const width = Math.max(...blocks.flatMap((block) => block.fields.map((field) => field.label.length)));
  const sections = blocks.map((block) =>
    [block.title, ...block.fields.map(({ label, value }) => `  ${label.padEnd(width)}  ${value}`)].join('\n'),
  );
  return [
    'vetflow first-run credentials (created on the first start of this database, shown only this once; store them now)',
    ...sections,
    `API reference: ${docsUrl}`,
  ].join('\n\n');
}

export interface CredentialsOutput {
  /** True when stdout is a terminal a person reads (process.stdout.isTTY), not a pipe or file. */
  isTTY: boolean;
  write(text: string): void;
  dataDir: string;
  logger: Pick<Logger, 'warn' | 'error'>;
}

/**
 * Secrets never go through the log stream: `npm start > server.log` or a container's log driver
 * would keep them. On a terminal they are printed for the person watching; otherwise they are
 * written to a file only this user can read (0600) in DATA_DIR, and only its path is logged.
 * Returns the file's path when one was written.
 */
export async function handOverCredentials(blocks: CredentialBlock[], docsUrl: string, output: CredentialsOutput): Promise<string | null> {
  if (blocks.length === 0) return null;
  const text = `${formatCredentials(blocks, docsUrl)}\n`;
  if (output.isTTY) {
    output.write(`\n${text}\n`);
    return null;
  }
  const file = path.resolve(output.dataDir, CREDENTIALS_FILE);
  try {
    await mkdir(path.dirname(file), { recursive: true });
    // A file left by an earlier first run (another database on this DATA_DIR) is replaced, never
    // rewritten in place: a new file is created 0600 whatever the old one's mode was.
    await rm(file, { force: true });
    await writeFile(file, text, { flag: 'wx', mode: 0o600 });
    await chmod(file, 0o600);
    output.logger.warn(
      { credentials_file: file },
      'first-run credentials written to a file only this user can read (stdout is not a terminal)',
    );
    return file;
  } catch (error) {
    // Without the file the secrets are lost, never logged: new ones come from the CLI.
    output.logger.error(
      { credentials_file: file, err: error },
      'could not write the first-run credentials; create a key with the CLI instead (docs/operations.md)',
    );
    return null;
  }
}
