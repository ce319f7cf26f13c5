import type { LinkSigner } from './ark/links.js';
import type { SimulatorConfig } from './config.js';
import type { FaultBook } from './faults.js';
import type { SimStats } from './stats.js';

/** What every simulated endpoint shares. */
export interface SimContext {
  config: SimulatorConfig;
  keys: Set<string>;
  faults: FaultBook;
  stats: SimStats;
  links: LinkSigner;
}
