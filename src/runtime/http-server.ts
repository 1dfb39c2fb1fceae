/**
 * A minimal HTTP server for the operator's probe and metrics endpoints (no framework: two or
 * three GET routes do not justify a dependency).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where to listen; no host means all interfaces. Port 0 picks a free port (tests). */
export interface ListenAddress {
  readonly host?: string;
  readonly port: number;
}

/** A route's answer. */
export interface HttpReply {
  readonly status: number;
  readonly body: string;
  readonly contentType?: string;
}

/** Routes by exact path (query string ignored); GET and HEAD only. */
export type Routes = Readonly<Record<string, (req: IncomingMessage) => HttpReply | Promise<HttpReply>>>;

/** A started server: the port actually bound and a `close` that also ends idle keep-alive sockets. */
export interface RunningServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Starts a server on `address` serving `routes`; rejects when the address cannot be bound. */
export async function startHttpServer(address: ListenAddress, routes: Routes): Promise<RunningServer> {
  const server = createServer((req, res) => void handle(routes, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { port: (server.address() as AddressInfo).port, close: () => closeServer(server) };
}

async function handle(routes: Routes, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const route = routes[path];
  let reply: HttpReply;
  if (req.method !== 'GET' && req.method !== 'HEAD') reply = { status: 405, body: 'method not allowed\n' };
  else if (!route) reply = { status: 404, body: 'not found\n' };
  else {
    try {
      reply = await route(req);
    } catch (error) {
      reply = { status: 500, body: `cannot serve ${path}: ${(error as Error).message}\n` };
    }
  }
  res.writeHead(reply.status, {
    'content-type': reply.contentType ?? 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : reply.body);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
