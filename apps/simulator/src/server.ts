import { createServer, type Server } from 'node:http';
import { listenOn } from '@relay/core';
import type { SimulatorConfig } from './config.js';
import { createSimulator, type Simulator } from './app.js';

export interface RunningSimulator extends Simulator {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Listens on SIM_HOST:SIM_PORT (0 = any free port) and returns the base URL. */
export async function startSimulator(config: SimulatorConfig): Promise<RunningSimulator> {
  const server = createServer();
  const { port } = await listenOn(server, config.SIM_PORT, config.SIM_HOST, 'SIM_PORT');
  const url = `http://${config.SIM_HOST}:${port}`;
  const sim = createSimulator(config, config.SIM_PUBLIC_URL?.replace(/\/+$/, '') ?? url);
  server.on('request', sim.app);
  return {
    ...sim,
    server,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
