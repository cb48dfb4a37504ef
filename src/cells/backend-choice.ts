export type CellBackendName = "microvm" | "bwrap" | "process";

export interface HostAbilities {
  kvmUsable: boolean;
  qemuMicrovm: boolean;
  tcgUsable: boolean;
  bwrapUsable: boolean;
}

export interface BackendChoice {
  backend: CellBackendName | null;
  reason: string;
  warning?: string;
}

/**
 * The `auto` policy: the strongest isolation that really works here. microvm under TCG is opt-in because it is
 * slow, and the unisolated process backend is only ever chosen when explicitly allowed.
 */
export function chooseCellBackend(
  host: HostAbilities,
  options: { allowTcg?: boolean; allowProcess?: boolean } = {},
): BackendChoice {
  if (host.qemuMicrovm && host.kvmUsable)
    return { backend: "microvm", reason: "QEMU microvm with usable KVM" };
  if (host.qemuMicrovm && host.tcgUsable && options.allowTcg) {
    return {
      backend: "microvm",
      reason: "QEMU microvm under TCG (allowed by configuration)",
      warning: "KVM is not usable: guests run under software emulation and boot in seconds, not milliseconds",
    };
  }
  if (host.bwrapUsable) {
    const why = host.qemuMicrovm
      ? "KVM is not usable and TCG is opt-in"
      : "QEMU with microvm support is missing";
    return { backend: "bwrap", reason: `bubblewrap namespaces (${why})` };
  }
  if (options.allowProcess) {
    return {
      backend: "process",
      reason: "no microvm or bubblewrap here; the process backend is allowed by configuration",
      warning: "the process backend does not isolate agents from the host",
    };
  }
  return { backend: null, reason: "no isolating backend works here and the process backend is not allowed" };
}
