import { open, readdir, readFile } from "node:fs/promises";
import { connect } from "node:net";
import { Duplex } from "node:stream";

/**
 * Where the inmate's protocol stream comes from: `stdio` (process and bwrap backends), `unix:<path>`, a
 * character device `device:<path>`, or `port:<name>`, the virtio-serial port QEMU named (the microvm backend;
 * the guest kernel numbers ports by probe order, so the name is the stable handle).
 */
export async function openGuestChannel(spec: string): Promise<Duplex> {
  if (spec === "stdio") {
    // A destroyed channel fails its pipes with an AbortError: the runtime then ends on the closed channel.
    process.stdin.on("error", () => {});
    process.stdout.on("error", () => {});
    return Duplex.from({ readable: process.stdin, writable: process.stdout });
  }
  if (spec.startsWith("unix:")) {
    const socket = connect(spec.slice(5));
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    return socket;
  }
  if (spec.startsWith("device:")) return openDevice(spec.slice(7));
  if (spec.startsWith("port:")) return openDevice(await findVirtioPort(spec.slice(5)));
  throw new Error(`unknown channel ${spec}: use stdio, unix:<path>, device:<path> or port:<name>`);
}

async function findVirtioPort(name: string): Promise<string> {
  const base = "/sys/class/virtio-ports";
  for (const port of await readdir(base)) {
    const portName = (await readFile(`${base}/${port}/name`, "utf8").catch(() => "")).trim();
    if (portName === name) return `/dev/${port}`;
  }
  throw new Error(`no virtio-serial port named ${name}`);
}

/**
 * A character device as a duplex stream. Reads run on libuv's thread pool (a virtio port is not a socket),
 * so one read is kept outstanding at a time; a zero-byte read means the host side went away.
 */
async function openDevice(path: string): Promise<Duplex> {
  const handle = await open(path, "r+");
  const buffer = Buffer.alloc(64 * 1024);
  let reading = false;
  let writeChain = Promise.resolve();
  const duplex = new Duplex({
    read() {
      if (reading) return;
      reading = true;
      handle.read(buffer, 0, buffer.length, null).then(
        ({ bytesRead }) => {
          reading = false;
          if (bytesRead === 0) duplex.push(null);
          else if (duplex.push(Buffer.from(buffer.subarray(0, bytesRead)))) duplex._read(0);
        },
        (error: Error) => duplex.destroy(error),
      );
    },
    write(chunk: Buffer, _encoding, callback) {
      writeChain = writeChain.then(async () => {
        let offset = 0;
        while (offset < chunk.length) offset += (await handle.write(chunk, offset)).bytesWritten;
      });
      writeChain.then(() => callback(), callback);
    },
    final(callback) {
      writeChain.then(() => callback(), callback);
    },
    destroy(error, callback) {
      handle.close().then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
  return duplex;
}
