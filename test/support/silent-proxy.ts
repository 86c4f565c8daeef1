import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy to a server that can go silent: `silence()` stops
 * forwarding in both directions and answers nothing to new connections,
 * while every socket stays open (no FIN, no RST), as a host behind a cut
 * network or a frozen VM looks to its clients. `resume()` ends the silence
 * by closing every socket it held (the clients see their connections end,
 * as when the network comes back and TCP gives up) and forwarding again.
 * `bytesFromClients` counts what clients sent, silenced or not, so a test
 * can tell whether anything was asked of the server.
 */
export interface SilentProxy {
  port: number;
  bytesFromClients: number;
  /** Client connections still open. */
  openClients(): number;
  silence(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startSilentProxy(targetPort: number): Promise<SilentProxy> {
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  let silent = false;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const proxy: SilentProxy = {
    port: 0,
    bytesFromClients: 0,
    openClients: () => clients.size,
    silence: () => {
      silent = true;
    },
    resume: () => {
      silent = false;
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
  const server: Server = createServer((client) => {
    track(client);
    clients.add(client);
    client.on('close', () => clients.delete(client));
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    client.on('data', (chunk) => {
      proxy.bytesFromClients += chunk.length;
      if (!silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!silent) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => {
      if (!silent) client.destroy();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  proxy.port = (server.address() as { port: number }).port;
  return proxy;
}
