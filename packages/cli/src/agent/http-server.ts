/**
 * The agent's HTTP endpoints: `/metrics` (Prometheus text), `/livez`, `/readyz`
 * (200 `ok` or 503 with the reason), and `/healthz`, kept as an alias of `/readyz`
 * for probes written against earlier versions.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { ListenAddress } from '../listen-address.js';
import type { ProbeResult } from './health.js';

/** The probes the server answers. */
export interface HealthProbes {
  live(): ProbeResult;
  ready(): ProbeResult;
}

/** Serves `/metrics`, `/livez`, `/readyz` and `/healthz` on `address`; resolves once listening. */
export async function serveAgentHttp(address: ListenAddress, registry: Registry, probes: HealthProbes): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    const path = (req.url ?? '').split('?')[0];
    if (path === '/metrics') {
      registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text))
        .catch((error: unknown) => res.writeHead(500).end(String(error)));
      return;
    }
    const probe = path === '/livez' ? probes.live() : path === '/readyz' || path === '/healthz' ? probes.ready() : undefined;
    if (probe === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(probe.ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' }).end(`${probe.reason}\n`);
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(address.port, address.host, () => {
      server.off('error', fail);
      ok();
    });
  });
  return server;
}

/** Closes `server`, dropping idle keep-alive connections so a scraper cannot hold the stop. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((ok) => {
    server.close(() => ok());
    server.closeIdleConnections();
  });
}
