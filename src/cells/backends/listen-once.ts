import { createServer, type Socket } from "node:net";

/** A unix socket for QEMU to connect to, closed for others once it has. */
export async function listenOnce(path: string): Promise<{ connection: Promise<Socket>; close: () => void }> {
  const server = createServer();
  let connected: Socket | undefined;
  const connection = new Promise<Socket>((resolve) => {
    server.once("connection", (socket) => {
      connected = socket;
      server.close();
      resolve(socket);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, resolve);
  });
  return {
    connection,
    close: () => {
      connected?.destroy();
      server.close();
    },
  };
}
