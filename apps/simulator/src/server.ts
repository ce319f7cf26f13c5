import { createServer, type Server } from 'node:http';
import { listenOn, type Vendor } from '@relay/core';
import type { SimulatorConfig } from './config.js';
import { createSimulator, type Simulator } from './app.js';
import { SIM_VENDORS } from './vendors.js';

export interface RunningSimulator extends Simulator {
  server: Server;
  url: string;
  /** The base URL a channel of `vendor` is given to call this simulator's fake of it. */
  baseUrl(vendor: Vendor): string;
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
    baseUrl: (vendor) => `${url}${SIM_VENDORS[vendor].base}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
