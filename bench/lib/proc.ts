import { readFileSync, writeFileSync } from 'node:fs';

// Memory and CPU of another process, read from /proc (Linux only). Values in bytes and seconds.

const CLOCK_TICKS_PER_SECOND = 100;

export function rssBytes(pid: number): number {
  return statusField(pid, 'VmRSS');
}

/** CPU time (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** The process's command name (`comm`, e.g. `postgres`). */
export function processName(pid: number): string {
  return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
}

function statusField(pid: number, name: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`${name} not found in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** Resets the kernel's peak-RSS mark (VmHWM) to the current RSS; false when not permitted. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface MemoryWindow {
  baselineBytes: number;
  peakBytes: number;
  growthBytes: number;
  cpuSeconds: number;
  samples: number;
}

/**
 * Watches a process while something runs: RSS right before (the baseline), its peak (sampled every
 * `intervalMs`, and the kernel's VmHWM, which catches spikes between samples) and the CPU it used.
 */
export async function watchProcess<T>(pid: number, work: () => Promise<T>, intervalMs = 20): Promise<{ result: T; memory: MemoryWindow }> {
  const hwmAvailable = resetPeak(pid);
  const baselineBytes = rssBytes(pid);
  const cpuBefore = cpuSeconds(pid);
  let peakBytes = baselineBytes;
  let samples = 0;
  const sample = () => {
    try {
      peakBytes = Math.max(peakBytes, rssBytes(pid));
      samples += 1;
    } catch {
      // the process exited; the caller sees that through its own work failing
    }
  };
  const timer = setInterval(sample, intervalMs);
  try {
    const result = await work();
    sample();
    if (hwmAvailable) peakBytes = Math.max(peakBytes, statusField(pid, 'VmHWM'));
    const memory = { baselineBytes, peakBytes, growthBytes: peakBytes - baselineBytes, cpuSeconds: cpuSeconds(pid) - cpuBefore, samples };
    return { result, memory };
  } finally {
    clearInterval(timer);
  }
}
