import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

// CI's first stage on a bare machine: the only Node.js on PATH is too old and $HOME has no
// .node24. The stage installs Node 24 with npm into ~/.node24 and must then use it, and so must
// everything after it. Bash remembers where it found a command (its hash table): the stage's
// subshell had found the old node before the install and kept calling it, so the stage failed
// with "could not be installed" right after the install succeeded.
//
// Nothing here touches the network: `npm` is a stand-in whose `install --prefix DIR node@24` puts
// a Node 24 stand-in at DIR/node_modules/.bin/node, as the real package does. Every node and npm
// call is written to one log, so the test can tell which node answered after the install.

const run = promisify(execFile);
// What .ci/run and the stand-ins call, linked into the one directory on PATH.
const TOOLS = ['bash', 'env', 'dirname', 'date', 'mktemp', 'cat', 'rm', 'mkdir', 'chmod'];

function findTool(name: string): string {
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin']) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  throw new Error(`${name} not found`);
}

const home = mkdtempSync(path.join(tmpdir(), 'vetflow-ci-node-'));
const bin = path.join(home, 'bin');
const log = path.join(home, 'calls.log');
afterAll(() => rmSync(home, { recursive: true, force: true }));

function script(file: string, body: string) {
  writeFileSync(file, `#!${findTool('sh')}\n${body}`, { mode: 0o755 });
}

describe('.ci/run, stage node, on a machine whose only Node.js is 20', () => {
  it('installs Node 24 into ~/.node24, passes and leaves the main shell on Node 24', async () => {
    mkdirSync(bin);
    for (const tool of TOOLS) symlinkSync(findTool(tool), path.join(bin, tool));
    // The system's old node: answers its version; any script fails, as the version check would.
    script(
      path.join(bin, 'node'),
      `echo "node20 $*" >>"${log}"
case "$1" in -v|--version) echo v20.19.2; exit 0;; esac
exit 1
`,
    );
    // The Node 24 that `npm install --prefix DIR node@24` provides: its version, and success.
    const node24 = `#!${findTool('sh')}
echo "node24 $*" >>"${log}"
case "$1" in -v|--version) echo v24.11.0;; esac
exit 0
`;
    script(
      path.join(bin, 'npm'),
      `echo "npm $*" >>"${log}"
case "$1" in -v|--version) echo 11.6.2; exit 0;; esac
[ "$1" = install ] || exit 1
prefix=
while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix=$2; shift; done
[ -n "$prefix" ] || exit 1
mkdir -p "$prefix/node_modules/.bin"
cat >"$prefix/node_modules/.bin/node" <<'EOF'
${node24}EOF
chmod +x "$prefix/node_modules/.bin/node"
`,
    );

    let result: { code: number; stdout: string; stderr: string };
    try {
      const { stdout, stderr } = await run(path.join(bin, 'bash'), ['.ci/run'], {
        cwd: ROOT,
        env: { HOME: home, PATH: bin, CI_STAGES: 'node' },
      });
      result = { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      result = { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
    const output = `${result.stdout}\n${result.stderr}`;

    expect(result.stderr).not.toContain('could not be installed');
    expect(result.stdout).toContain(`installing: Node.js 24 (npm package node@24) into ${home}/.node24`);
    expect(result.stdout).toContain(`node v24.11.0 at ${home}/.node24/node_modules/.bin/node, npm 11.6.2`);
    expect(result.stdout).toMatch(/^node +ok /m);
    expect(result.code, output).toBe(0);

    // After the install, no call reached the old node: neither the stage's check nor the main
    // shell's probe of Postgres that follows the stage (which runs `node -e` in the main shell).
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    const install = calls.findIndex((line) => line.startsWith('npm install'));
    expect(install, calls.join('\n')).toBeGreaterThan(0);
    const after = calls.slice(install + 1);
    expect(
      after.filter((line) => line.startsWith('node20')),
      calls.join('\n'),
    ).toEqual([]);
    expect(
      after.some((line) => line.startsWith('node24 -e') && line.includes("require('pg')")),
      calls.join('\n'),
    ).toBe(true);
  });
});
