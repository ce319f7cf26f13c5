export { createSimulator, type Simulator } from './app.js';
export { startSimulator, type RunningSimulator } from './server.js';
export { loadSimulatorConfig, simulatorEnvSchema, type SimulatorConfig } from './config.js';
export { faultSchema, type Fault } from './faults.js';
