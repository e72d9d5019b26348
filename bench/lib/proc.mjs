// Process measurements from /proc (Linux): CPU time and memory of a server process.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

let clkTck;
/** Clock ticks per second, the unit of utime/stime in /proc/<pid>/stat. */
export function clockTicks() {
  if (clkTck === undefined) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

export function hasProc() {
  return existsSync('/proc/self/stat');
}

/** The process's user + system CPU time in seconds (NaN where /proc is missing). */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime is field 14, stime field 15.
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return NaN;
  }
}

/** CPU seconds of this process's waited-for children (cutime + cstime): how wrk's CPU time is read. */
export function childrenCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // cutime is field 16, cstime field 17.
    return (Number(fields[13]) + Number(fields[14])) / clockTicks();
  } catch {
    return NaN;
  }
}

/** A field of /proc/<pid>/status in KiB (VmHWM = peak RSS, VmRSS = current RSS); NaN when unknown. */
export function memoryKiB(pid, field = 'VmHWM') {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Microseconds during which some runnable task waited for a CPU (/proc/pressure/cpu "some total"),
 * NaN without PSI. Its share of a run's wall time says how contended the machine was.
 */
export function cpuPressureUs() {
  try {
    const m = /^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}
