// The relay's processes run by the same code npm start uses (@relay/local).
export {
  APP_NODE_ARGS,
  repoRoot,
  SOURCE_NODE_ARGS,
  spawnApp,
  spawnReady,
  type AppName,
  type AppProcess,
  type ReadyMessage,
  type SpawnOptions,
} from '@relay/local';
