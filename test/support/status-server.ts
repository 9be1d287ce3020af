// A real HTTP server standing in for the Atlassian Statuspage status source; each test sets how
// it behaves (healthy, slow, failing, garbage, oversized, redirecting).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type StatusBehaviour = (response: ServerResponse) => void;

export interface StatusServer {
  url: URL;
  hits: number;
  behave(behaviour: StatusBehaviour): void;
  close(): Promise<void>;
}

export function summary(overrides: Record<string, unknown> = {}) {
  return {
    page: { id: 'p1', name: 'Game Platform', url: 'https://status.invalid', updated_at: '2026-11-22T10:00:00.000Z' },
    status: { indicator: 'minor', description: 'Minor Service Outage' },
    components: [
      { id: 'c1', name: 'API Gateway', status: 'operational', group: false },
      { id: 'c2', name: 'Matchmaking', status: 'degraded_performance', group: false },
      { id: 'c3', name: 'Payments', status: 'partial_outage', group: false },
      { id: 'c4', name: 'Login', status: 'major_outage', group: false },
      { id: 'c5', name: 'Maps', status: 'under_maintenance', group: false },
      { id: 'c6', name: 'Voice Chat', status: 'something_new', group: false },
      { id: 'g1', name: 'Backend', status: 'partial_outage', group: true },
    ],
    incidents: [],
    scheduled_maintenances: [],
    ...overrides,
  };
}

export const healthy: StatusBehaviour = (response) => {
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify(summary()));
};

export async function startStatusServer(initial: StatusBehaviour = healthy): Promise<StatusServer> {
  let behaviour = initial;
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((_request, response) => {
    state.hits += 1;
    behaviour(response);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const state: StatusServer = {
    url: new URL(`http://127.0.0.1:${port}/api/v2/summary.json`),
    hits: 0,
    behave(next) {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return state;
}
