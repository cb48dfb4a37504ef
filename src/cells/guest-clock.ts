import { readFileSync } from "node:fs";

/**
 * Under TCG the guest's TSC is the host's, but a loaded host makes the kernel's PIT calibration fail (microvm
 * has no HPET or ACPI PM timer to fall back on) and boot then hangs before the delay loop. Telling the kernel
 * the frequency, and the loops per jiffy that follow from it, skips both calibrations; `tsc=reliable` and
 * `no_timer_check` skip the clocksource watchdog and the timer check, which under emulation only measure
 * how slow the emulation is (and each cost a visible part of a second).
 */
export function tcgClockParams(): string[] {
  const mhz = Number(/^cpu MHz\s*:\s*([\d.]+)/m.exec(readCpuinfo())?.[1] ?? "0");
  if (!(mhz > 0)) return [];
  const khz = Math.round(mhz * 1000);
  // Debian's cloud kernel runs at HZ=250.
  return [`tsc_early_khz=${khz}`, `lpj=${Math.round((khz * 1000) / 250)}`, "tsc=reliable", "no_timer_check"];
}

function readCpuinfo(): string {
  try {
    return readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    return "";
  }
}
